//! HiGHS, the open-source MILP solver the optimizer service's own test suite uses, reached
//! through its C API in the shared library that the `highsbox` package (HiGHS's binary
//! distribution on PyPI) ships in `highsbox/highs_dist/lib/`.
//!
//! Why loaded at run time rather than compiled in: HiGHS is about 200 C++ files, 13 minutes of
//! both cores here per toolchain, and the manylinux wheel would need a second build with zig's
//! libc++; `highsbox` publishes the same library as manylinux2014, macOS and Windows wheels
//! (docs/design.md, "The MILP solver"). Only the C functions below are used, and their
//! signatures are the stable C API of HiGHS 1.x.
//!
//! Where the library is found, first match wins:
//! 1. the path given to `set_library_location` (the Python package passes `highsbox`'s
//!    `highs_dist` folder);
//! 2. the environment variable `SUNFLUX_HIGHS_LIBRARY`: the library file, a folder that holds
//!    it (directly or in `lib/` or `bin/`), or a virtual environment whose `site-packages`
//!    holds `highsbox`.

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// The environment variable that names the library (or its folder, or a venv).
pub const LIBRARY_VARIABLE: &str = "SUNFLUX_HIGHS_LIBRARY";

/// The environment variable that names a file HiGHS appends its log to (presolve, the root LP,
/// the branch-and-bound table), to see where a slow solve spends its time; without it HiGHS is
/// silent.
pub const LOG_VARIABLE: &str = "SUNFLUX_HIGHS_LOG";

type HighsInt = c_int;

/// The C API's status and model-status codes (`highs_c_api.h`).
const STATUS_ERROR: HighsInt = -1;
const MATRIX_ROWWISE: HighsInt = 2;
const SENSE_MINIMIZE: HighsInt = 1;
const CALLBACK_SIMPLEX_INTERRUPT: c_int = 1;
const CALLBACK_IPM_INTERRUPT: c_int = 2;
const CALLBACK_MIP_INTERRUPT: c_int = 6;

/// `HighsCallbackDataIn`: only its first field, `user_interrupt`, is written (HiGHS keeps that
/// field first for its external interfaces).
#[repr(C)]
struct CallbackDataIn {
    user_interrupt: c_int,
}

type Callback = unsafe extern "C" fn(c_int, *const c_char, *const c_void, *mut CallbackDataIn, *mut c_void);

/// The C functions used, resolved once.
struct Api {
    // The library stays loaded for the life of the process: the pointers below point into it.
    _library: libloading::Library,
    create: unsafe extern "C" fn() -> *mut c_void,
    destroy: unsafe extern "C" fn(*mut c_void),
    pass_mip: unsafe extern "C" fn(
        *mut c_void,
        HighsInt,
        HighsInt,
        HighsInt,
        HighsInt,
        HighsInt,
        f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        *const HighsInt,
        *const HighsInt,
        *const f64,
        *const HighsInt,
    ) -> HighsInt,
    run: unsafe extern "C" fn(*mut c_void) -> HighsInt,
    set_bool_option: unsafe extern "C" fn(*mut c_void, *const c_char, HighsInt) -> HighsInt,
    set_int_option: unsafe extern "C" fn(*mut c_void, *const c_char, HighsInt) -> HighsInt,
    set_double_option: unsafe extern "C" fn(*mut c_void, *const c_char, f64) -> HighsInt,
    set_string_option: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> HighsInt,
    set_solution: unsafe extern "C" fn(*mut c_void, *const f64, *const f64, *const f64, *const f64) -> HighsInt,
    get_solution: unsafe extern "C" fn(*const c_void, *mut f64, *mut f64, *mut f64, *mut f64) -> HighsInt,
    get_model_status: unsafe extern "C" fn(*const c_void) -> HighsInt,
    get_objective_value: unsafe extern "C" fn(*const c_void) -> f64,
    get_int_info: unsafe extern "C" fn(*const c_void, *const c_char, *mut HighsInt) -> HighsInt,
    get_double_info: unsafe extern "C" fn(*const c_void, *const c_char, *mut f64) -> HighsInt,
    get_int64_info: unsafe extern "C" fn(*const c_void, *const c_char, *mut i64) -> HighsInt,
    set_callback: unsafe extern "C" fn(*mut c_void, Option<Callback>, *mut c_void) -> HighsInt,
    start_callback: unsafe extern "C" fn(*mut c_void, c_int) -> HighsInt,
    version: unsafe extern "C" fn() -> *const c_char,
}

static LOCATION: Mutex<Option<PathBuf>> = Mutex::new(None);
static API: OnceLock<Result<Api, String>> = OnceLock::new();

/// Where to look for the library before the environment variable (the Python package calls
/// this at import with `highsbox`'s distribution folder). Without effect once the library is loaded.
pub fn set_library_location(path: PathBuf) {
    *LOCATION.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(path);
}

/// Whether a file name is the HiGHS shared library on some platform.
fn is_library_name(name: &str) -> bool {
    let stem_ok = name.starts_with("libhighs") || name.starts_with("highs");
    let kind_ok = name.contains(".so") || name.ends_with(".dylib") || name.ends_with(".dll");
    stem_ok && kind_ok
}

/// The library file directly in a folder, preferring the shortest name (`libhighs.so` over a
/// versioned twin).
fn library_directly_in(folder: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(folder).ok()?;
    entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file() && path.file_name().and_then(|n| n.to_str()).is_some_and(is_library_name))
        .min_by_key(|path| path.as_os_str().len())
}

/// The library in a distribution folder: directly, or in its `lib/` or `bin/` (Windows).
fn library_in(folder: &Path) -> Option<PathBuf> {
    library_directly_in(folder).or_else(|| library_directly_in(&folder.join("lib"))).or_else(|| library_directly_in(&folder.join("bin")))
}

/// `highsbox`'s distribution folder in a virtual environment
/// (`lib/python3.*/site-packages/highsbox/highs_dist`, or Windows' `Lib/site-packages/…`).
fn highsbox_in_venv(venv: &Path) -> Option<PathBuf> {
    let inside = |site_packages: PathBuf| site_packages.join("highsbox").join("highs_dist");
    let windows = inside(venv.join("Lib").join("site-packages"));
    if windows.is_dir() {
        return Some(windows);
    }
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.filter_map(|entry| entry.ok().map(|e| inside(e.path().join("site-packages")))).find(|path| path.is_dir())
}

/// The library file a configured path names: the file, a folder holding it, or a venv.
fn resolve(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    library_in(path).or_else(|| highsbox_in_venv(path).and_then(|folder| library_in(&folder)))
}

fn locate() -> Result<PathBuf, String> {
    let configured = LOCATION.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    let from_env = std::env::var_os(LIBRARY_VARIABLE).map(PathBuf::from);
    let candidates: Vec<PathBuf> = configured.into_iter().chain(from_env).collect();
    candidates.iter().find_map(|path| resolve(path)).ok_or_else(|| {
        let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        format!(
            "the HiGHS solver library was not found (tried: {}); install the `highsbox` package, or set {LIBRARY_VARIABLE} to the library file",
            if tried.is_empty() { "nothing configured".to_string() } else { tried.join(", ") }
        )
    })
}

/// Resolves one symbol as a plain function pointer.
///
/// # Safety
/// `T` must be the symbol's true C signature.
unsafe fn symbol<T: Copy>(library: &libloading::Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller names the C signature of the symbol; the library outlives the pointer
    // (it is kept in `Api` for the life of the process).
    unsafe { library.get::<T>(name.as_bytes()).map(|s| *s).map_err(|e| format!("the HiGHS library lacks {name}: {e}")) }
}

fn load() -> Result<Api, String> {
    let path = locate()?;
    // SAFETY: loading a shared library runs its initialisers; HiGHS's are C++ static
    // constructors with no side effects beyond its own state.
    let library = unsafe { libloading::Library::new(&path) }.map_err(|e| format!("the HiGHS library {} could not be loaded: {e}", path.display()))?;
    // SAFETY: each signature below is the one `highs_c_api.h` declares (HighsInt is 32-bit in
    // the published builds; its size is checked first).
    unsafe {
        let sizeof_int: unsafe extern "C" fn() -> HighsInt = symbol(&library, "Highs_getSizeofHighsInt")?;
        if sizeof_int() as usize != std::mem::size_of::<HighsInt>() {
            return Err(format!("the HiGHS library {} uses {}-byte integers; sunflux needs 4", path.display(), sizeof_int()));
        }
        Ok(Api {
            create: symbol(&library, "Highs_create")?,
            destroy: symbol(&library, "Highs_destroy")?,
            pass_mip: symbol(&library, "Highs_passMip")?,
            run: symbol(&library, "Highs_run")?,
            set_bool_option: symbol(&library, "Highs_setBoolOptionValue")?,
            set_int_option: symbol(&library, "Highs_setIntOptionValue")?,
            set_double_option: symbol(&library, "Highs_setDoubleOptionValue")?,
            set_string_option: symbol(&library, "Highs_setStringOptionValue")?,
            set_solution: symbol(&library, "Highs_setSolution")?,
            get_solution: symbol(&library, "Highs_getSolution")?,
            get_model_status: symbol(&library, "Highs_getModelStatus")?,
            get_objective_value: symbol(&library, "Highs_getObjectiveValue")?,
            get_int_info: symbol(&library, "Highs_getIntInfoValue")?,
            get_double_info: symbol(&library, "Highs_getDoubleInfoValue")?,
            get_int64_info: symbol(&library, "Highs_getInt64InfoValue")?,
            set_callback: symbol(&library, "Highs_setCallback")?,
            start_callback: symbol(&library, "Highs_startCallback")?,
            version: symbol(&library, "Highs_version")?,
            _library: library,
        })
    }
}

fn api() -> Result<&'static Api, String> {
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// The loaded library's version text (`"1.15.1"`), or why it cannot be loaded.
pub fn version() -> Result<String, String> {
    let api = api()?;
    // SAFETY: `Highs_version` returns a static NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr((api.version)()) };
    Ok(text.to_string_lossy().into_owned())
}

/// A mixed-integer program in HiGHS's row-wise form: minimize `cost·x + offset` subject to
/// `row_lower ≤ A·x ≤ row_upper`, `col_lower ≤ x ≤ col_upper`, `x_j` integer where `integer[j]`.
/// Infinite bounds are `±f64::INFINITY`.
#[derive(Debug, Clone, Default)]
pub struct Mip {
    pub offset: f64,
    pub cost: Vec<f64>,
    pub col_lower: Vec<f64>,
    pub col_upper: Vec<f64>,
    pub row_lower: Vec<f64>,
    pub row_upper: Vec<f64>,
    pub row_start: Vec<usize>,
    pub index: Vec<usize>,
    pub value: Vec<f64>,
    pub integer: Vec<bool>,
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MipStatus {
    Optimal,
    Infeasible,
    Unbounded,
    TimeLimit,
    Interrupted,
    /// Any other model status (its code in `highs_c_api.h`).
    Other(i32),
}

/// Options of one solve.
#[derive(Debug, Clone, Copy)]
pub struct MipOptions<'a> {
    /// Relative MIP gap at which the search stops.
    pub relative_gap: f64,
    /// Seconds; infinite for none.
    pub time_limit: f64,
    /// A point that meets every row and bound (one value per column, integers integral): HiGHS
    /// starts from its objective as the incumbent instead of searching for a first one.
    pub start: Option<&'a [f64]>,
}

/// A solve's result. `x` is empty when there is no feasible point.
#[derive(Debug, Clone)]
pub struct MipOutcome {
    pub status: MipStatus,
    pub x: Vec<f64>,
    pub objective: f64,
    /// The relative gap HiGHS reports between its best point and its bound.
    pub gap: f64,
    pub nodes: u64,
    pub simplex_iterations: u64,
}

/// Owns one `Highs` instance.
struct Instance<'a> {
    api: &'a Api,
    handle: *mut c_void,
}

impl Drop for Instance<'_> {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `Highs_create` and is destroyed once.
        unsafe { (self.api.destroy)(self.handle) }
    }
}

/// Tells HiGHS to stop when the flag is set (called from HiGHS's solver threads).
unsafe extern "C" fn interrupt_when_cancelled(_kind: c_int, _message: *const c_char, _out: *const c_void, data_in: *mut CallbackDataIn, user: *mut c_void) {
    if user.is_null() || data_in.is_null() {
        return;
    }
    // SAFETY: `user` is the `&AtomicBool` passed to `Highs_setCallback`, alive for the solve;
    // `data_in` is HiGHS's input struct, whose first field is `user_interrupt`.
    unsafe {
        let cancelled = &*(user as *const AtomicBool);
        if cancelled.load(Ordering::Relaxed) {
            (*data_in).user_interrupt = 1;
        }
    }
}

fn checked(status: HighsInt, what: &str) -> Result<(), String> {
    if status == STATUS_ERROR {
        Err(format!("HiGHS refused {what}"))
    } else {
        Ok(())
    }
}

fn option_name(name: &str) -> CString {
    CString::new(name).unwrap_or_default()
}

fn to_int(value: usize, what: &str) -> Result<HighsInt, String> {
    HighsInt::try_from(value).map_err(|_| format!("the program has too many {what} for HiGHS ({value})"))
}

/// Solves a MIP. `cancel`, when set during the solve, stops it (`MipStatus::Interrupted`).
pub fn solve(mip: &Mip, options: MipOptions<'_>, cancel: Option<&AtomicBool>) -> Result<MipOutcome, String> {
    let api = api()?;
    let columns = mip.cost.len();
    let rows = mip.row_lower.len();
    let index: Vec<HighsInt> = mip.index.iter().map(|&j| to_int(j, "columns")).collect::<Result<_, _>>()?;
    let start: Vec<HighsInt> = mip.row_start.iter().take(rows).map(|&k| to_int(k, "nonzeros")).collect::<Result<_, _>>()?;
    let start = if start.is_empty() { vec![0] } else { start };
    let integrality: Vec<HighsInt> = mip.integer.iter().map(|&integer| HighsInt::from(integer)).collect();
    // SAFETY: `Highs_create` has no preconditions; the instance is destroyed by `Instance`.
    let instance = Instance { api, handle: unsafe { (api.create)() } };
    if instance.handle.is_null() {
        return Err("HiGHS could not create a solver instance".into());
    }
    let h = instance.handle;
    let log_file = std::env::var_os(LOG_VARIABLE).and_then(|path| CString::new(path.to_string_lossy().into_owned()).ok());
    if options.start.is_some_and(|start| start.len() != columns) {
        return Err(format!("the start point has {} values for {columns} columns", options.start.map_or(0, <[f64]>::len)));
    }
    // SAFETY: every array has the length its count says (columns, rows, nonzeros), and
    // `integrality` and the start point have one entry per column; HiGHS copies them.
    unsafe {
        checked((api.set_bool_option)(h, option_name("output_flag").as_ptr(), HighsInt::from(log_file.is_some())), "output_flag")?;
        if let Some(file) = &log_file {
            checked((api.set_bool_option)(h, option_name("log_to_console").as_ptr(), 0), "log_to_console")?;
            checked((api.set_string_option)(h, option_name("log_file").as_ptr(), file.as_ptr()), "log_file")?;
        }
        checked((api.set_double_option)(h, option_name("mip_rel_gap").as_ptr(), options.relative_gap), "mip_rel_gap")?;
        if options.time_limit.is_finite() {
            checked((api.set_double_option)(h, option_name("time_limit").as_ptr(), options.time_limit.max(0.0)), "time_limit")?;
        }
        checked((api.set_int_option)(h, option_name("threads").as_ptr(), 1), "threads")?;
        checked(
            (api.pass_mip)(
                h,
                to_int(columns, "columns")?,
                to_int(rows, "rows")?,
                to_int(mip.value.len(), "nonzeros")?,
                MATRIX_ROWWISE,
                SENSE_MINIMIZE,
                mip.offset,
                mip.cost.as_ptr(),
                mip.col_lower.as_ptr(),
                mip.col_upper.as_ptr(),
                mip.row_lower.as_ptr(),
                mip.row_upper.as_ptr(),
                start.as_ptr(),
                index.as_ptr(),
                mip.value.as_ptr(),
                integrality.as_ptr(),
            ),
            "the program",
        )?;
        if let Some(start) = options.start {
            // A start HiGHS finds infeasible is dropped with a warning: the search then runs as without one.
            (api.set_solution)(h, start.as_ptr(), std::ptr::null(), std::ptr::null(), std::ptr::null());
        }
        if let Some(flag) = cancel {
            checked((api.set_callback)(h, Some(interrupt_when_cancelled), flag as *const AtomicBool as *mut c_void), "the callback")?;
            for kind in [CALLBACK_SIMPLEX_INTERRUPT, CALLBACK_IPM_INTERRUPT, CALLBACK_MIP_INTERRUPT] {
                checked((api.start_callback)(h, kind), "the interrupt callback")?;
            }
        }
        (api.run)(h);
        let status = match (api.get_model_status)(h) {
            7 => MipStatus::Optimal,
            8 => MipStatus::Infeasible,
            9 | 10 => MipStatus::Unbounded,
            13 => MipStatus::TimeLimit,
            17 => MipStatus::Interrupted,
            other => MipStatus::Other(other),
        };
        let info_int = |name: &str| -> u64 {
            let mut value: HighsInt = 0;
            (api.get_int_info)(h, option_name(name).as_ptr(), &mut value);
            u64::try_from(value).unwrap_or(0)
        };
        let simplex_iterations = info_int("simplex_iteration_count");
        let mut nodes: i64 = 0;
        (api.get_int64_info)(h, option_name("mip_node_count").as_ptr(), &mut nodes);
        let mut gap = f64::NAN;
        (api.get_double_info)(h, option_name("mip_gap").as_ptr(), &mut gap);
        let mut primal_status: HighsInt = 0;
        (api.get_int_info)(h, option_name("primal_solution_status").as_ptr(), &mut primal_status);
        let has_point = primal_status == 2;
        let mut x = Vec::new();
        if has_point {
            x = vec![0.0; columns];
            let mut col_dual = vec![0.0; columns];
            let mut row_value = vec![0.0; rows];
            let mut row_dual = vec![0.0; rows];
            (api.get_solution)(h, x.as_mut_ptr(), col_dual.as_mut_ptr(), row_value.as_mut_ptr(), row_dual.as_mut_ptr());
        }
        let objective = if has_point { (api.get_objective_value)(h) } else { f64::NAN };
        Ok(MipOutcome { status, x, objective, gap, nodes: u64::try_from(nodes).unwrap_or(0), simplex_iterations })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_of_every_platform_are_recognised() {
        for name in ["libhighs.so.1", "libhighs.so.1.15.1", "libhighs.so", "libhighs.1.dylib", "highs.dll", "libhighs.dll"] {
            assert!(is_library_name(name), "{name}");
        }
        for name in ["_core.cpython-311-x86_64-linux-gnu.so", "highs.exe", "libopenblas.so", "__init__.py"] {
            assert!(!is_library_name(name), "{name}");
        }
    }

    /// max x + y (as min −x − y) with x + 2y ≤ 3.5, 3x + y ≤ 5, y integer: the LP optimum
    /// (1.3, 1.1) is fractional; the MILP optimum is y = 1, x = 4/3.
    #[test]
    fn a_small_milp_is_solved_to_its_integer_optimum() {
        let mip = Mip {
            offset: 0.0,
            cost: vec![-1.0, -1.0],
            col_lower: vec![0.0, 0.0],
            col_upper: vec![f64::INFINITY, f64::INFINITY],
            row_lower: vec![f64::NEG_INFINITY, f64::NEG_INFINITY],
            row_upper: vec![3.5, 5.0],
            row_start: vec![0, 2, 4],
            index: vec![0, 1, 0, 1],
            value: vec![1.0, 2.0, 3.0, 1.0],
            integer: vec![false, true],
        };
        let outcome = solve(&mip, MipOptions { relative_gap: 1e-9, time_limit: 10.0, start: None }, None).unwrap();
        assert_eq!(outcome.status, MipStatus::Optimal);
        assert!((outcome.x[1] - 1.0).abs() < 1e-9, "{:?}", outcome.x);
        assert!((outcome.x[0] - 4.0 / 3.0).abs() < 1e-9, "{:?}", outcome.x);
        assert!((outcome.objective + 7.0 / 3.0).abs() < 1e-9);
        assert!(version().unwrap().starts_with('1'));
    }

    #[test]
    fn a_set_cancel_flag_interrupts_the_solve() {
        let flag = AtomicBool::new(true);
        let mip = Mip {
            cost: vec![-1.0],
            col_lower: vec![0.0],
            col_upper: vec![10.5],
            row_start: vec![0],
            integer: vec![true],
            ..Mip::default()
        };
        let outcome = solve(&mip, MipOptions { relative_gap: 0.0, time_limit: f64::INFINITY, start: None }, Some(&flag)).unwrap();
        assert!(matches!(outcome.status, MipStatus::Interrupted | MipStatus::Optimal), "{:?}", outcome.status);
    }
}
