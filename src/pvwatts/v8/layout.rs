//! The physical layout PVWatts v8 assumes for a system, from its DC rating alone: typical 300 W
//! modules of the module type's efficiency (aspect ratio 1.7), two modules up in portrait on
//! fixed racks and two-axis trackers, one up on single-axis trackers, a "square" field of rows,
//! and the row spacing that gives the ground coverage ratio. Self-shading, the bifacial model
//! and the snow model work on it; it never changes the DC rating.
//!
//! Reference: SSC `ssc/cmod_pvwattsv8.cpp` (`exec`, "Electrical Layout" and "Physical Layout").

use crate::pvwatts::params::ArrayType;

/// Nameplate of the typical module, W.
pub const MODULE_NAMEPLATE_W: f64 = 300.0;
/// Module length over width.
pub const MODULE_ASPECT_RATIO: f64 = 1.7;
/// Modules per string (about 420 V DC with modules of about 60 V).
pub const MODULES_PER_STRING: f64 = 7.0;
/// Height of the lower module edge (fixed arrays) or of the rotation axis (single-axis
/// trackers) above the ground, m.
pub const GROUND_CLEARANCE_M: f64 = 1.0;

/// Size of one module, m and m².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModuleGeometry {
    /// Area, m² (nameplate / efficiency / 1000 W/m²).
    pub area: f64,
    /// Short side, m.
    pub width: f64,
    /// Long side, m.
    pub length: f64,
}

impl ModuleGeometry {
    /// A 300 W module of rated efficiency `stc_efficiency` (0–1).
    pub fn of(stc_efficiency: f64) -> Self {
        let area = MODULE_NAMEPLATE_W / stc_efficiency / 1000.0;
        let width = (area / MODULE_ASPECT_RATIO).sqrt();
        ModuleGeometry {
            area,
            width,
            length: width * MODULE_ASPECT_RATIO,
        }
    }
}

/// Rows and spacing of the array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArrayLayout {
    /// The module.
    pub module: ModuleGeometry,
    /// Modules up the slope of a row (portrait): 1 on single-axis trackers, else 2.
    pub modules_up: i32,
    /// Modules along a row.
    pub modules_along: i32,
    /// Rows (1 for roof mounts).
    pub rows: i32,
    /// Strings side by side along a row (horizontal stringing).
    pub strings_along: i32,
    /// Distance from a row to the next, m.
    pub row_spacing: f64,
}

impl ArrayLayout {
    /// The layout of a system of `dc_nameplate_w` (W) on `array_type` with ground coverage ratio
    /// `gcr`, built from `module`.
    pub fn new(
        dc_nameplate_w: f64,
        array_type: ArrayType,
        gcr: f64,
        module: ModuleGeometry,
    ) -> Self {
        let modules = (dc_nameplate_w / MODULE_NAMEPLATE_W).ceil().max(1.0);
        let modules_up = match array_type {
            ArrayType::OneAxis | ArrayType::OneAxisBacktracking => 1,
            _ => 2,
        };
        let rows = match array_type {
            ArrayType::FixedRoofMount => 1,
            _ => (modules / f64::from(modules_up)).sqrt().ceil() as i32,
        };
        let modules_along = ((modules / f64::from(rows * modules_up)).ceil() as i32).max(1);
        ArrayLayout {
            module,
            modules_up,
            modules_along,
            rows,
            strings_along: (f64::from(modules_along) / MODULES_PER_STRING) as i32,
            row_spacing: module.length * f64::from(modules_up) / gcr,
        }
    }

    /// Length of a row's side up the slope (its collector width), m.
    pub fn slope_length(&self) -> f64 {
        self.module.length * f64::from(self.modules_up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_4_kw_fixed_rack_is_three_rows_of_three_by_two() {
        let module = ModuleGeometry::of(0.19);
        assert!((module.area - 300.0 / 0.19 / 1000.0).abs() < 1e-15);
        assert!((module.length / module.width - 1.7).abs() < 1e-12);
        let layout = ArrayLayout::new(4000.0, ArrayType::FixedOpenRack, 0.4, module);
        assert_eq!(
            (
                layout.modules_up,
                layout.rows,
                layout.modules_along,
                layout.strings_along
            ),
            (2, 3, 3, 0)
        );
        assert!((layout.row_spacing - 2.0 * module.length / 0.4).abs() < 1e-12);
        let tracker = ArrayLayout::new(4000.0, ArrayType::OneAxis, 0.4, module);
        assert_eq!(
            (tracker.modules_up, tracker.rows, tracker.modules_along),
            (1, 4, 4)
        );
        let roof = ArrayLayout::new(4000.0, ArrayType::FixedRoofMount, 0.4, module);
        assert_eq!((roof.rows, roof.modules_along), (1, 7));
        let tiny = ArrayLayout::new(50.0, ArrayType::TwoAxis, 0.4, module);
        assert_eq!((tiny.rows, tiny.modules_along), (1, 1));
        let plant = ArrayLayout::new(5.0e6, ArrayType::FixedOpenRack, 0.4, module);
        assert_eq!(plant.strings_along, plant.modules_along / 7);
    }
}
