//! A static k-d tree over unit vectors of the sphere: the chord between unit vectors grows with the
//! great-circle angle, so the nearest by chord is the nearest on the sphere (radius 6,371,008.8 m,
//! `geodesy::EARTH_RADIUS_M`).

use crate::geodesy::EARTH_RADIUS_M;

pub fn unit_vector(lat: f64, lon: f64) -> [f64; 3] {
    let (phi, lambda) = (lat.to_radians(), lon.to_radians());
    [phi.cos() * lambda.cos(), phi.cos() * lambda.sin(), phi.sin()]
}

/// The squared chord between unit vectors for a great-circle distance, widened by a hair so that
/// rounding never drops a station the haversine check would keep.
pub fn chord_squared(distance_m: f64) -> f64 {
    if distance_m.is_nan() || distance_m < 0.0 {
        return -1.0;
    }
    let angle = (distance_m / EARTH_RADIUS_M).min(std::f64::consts::PI);
    let chord = 2.0 * (angle / 2.0).sin();
    (chord * (1.0 + 1e-9) + 1e-12).powi(2)
}

fn squared_distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// A static, balanced k-d tree in one array: the node of a range `lo..hi` sits at its middle,
/// its left subtree before it and its right subtree after it.
#[derive(Debug, Clone)]
pub struct KdTree {
    points: Vec<[f64; 3]>,
    order: Vec<usize>,
    axes: Vec<usize>,
}

impl KdTree {
    pub fn build(points: Vec<[f64; 3]>) -> KdTree {
        let mut tree = KdTree { order: (0..points.len()).collect(), axes: vec![0; points.len()], points };
        tree.split(0, tree.order.len());
        tree
    }

    fn split(&mut self, lo: usize, hi: usize) {
        if hi <= lo {
            return;
        }
        let axis = self.widest_axis(lo, hi);
        let mid = lo + (hi - lo) / 2;
        let points = &self.points;
        self.order[lo..hi].select_nth_unstable_by(mid - lo, |&a, &b| points[a][axis].total_cmp(&points[b][axis]));
        self.axes[mid] = axis;
        self.split(lo, mid);
        self.split(mid + 1, hi);
    }

    fn widest_axis(&self, lo: usize, hi: usize) -> usize {
        let spread = |axis: usize| {
            let values = self.order[lo..hi].iter().map(|&i| self.points[i][axis]);
            let (min, max) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(min, max), v| (min.min(v), max.max(v)));
            max - min
        };
        (0..3).max_by(|&a, &b| spread(a).total_cmp(&spread(b))).unwrap_or(0)
    }

    /// The point closest to `query` whose squared distance is at most `bound`, with that distance.
    pub fn nearest(&self, query: [f64; 3], bound: f64) -> Option<(usize, f64)> {
        let mut best = None;
        let mut best_distance = bound;
        self.search_nearest(0, self.order.len(), query, &mut best, &mut best_distance);
        best.map(|position| (position, best_distance))
    }

    fn search_nearest(&self, lo: usize, hi: usize, query: [f64; 3], best: &mut Option<usize>, best_distance: &mut f64) {
        if hi <= lo {
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let position = self.order[mid];
        let point = self.points[position];
        let distance = squared_distance(point, query);
        if distance < *best_distance || (best.is_none() && distance <= *best_distance) {
            *best = Some(position);
            *best_distance = distance;
        }
        let axis = self.axes[mid];
        let offset = query[axis] - point[axis];
        let (near, far) = if offset < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search_nearest(near.0, near.1, query, best, best_distance);
        if offset * offset <= *best_distance {
            self.search_nearest(far.0, far.1, query, best, best_distance);
        }
    }

    /// Every point whose squared distance to `query` is at most `bound`, in no particular order.
    pub fn within(&self, query: [f64; 3], bound: f64, found: &mut Vec<usize>) {
        self.search_within(0, self.order.len(), query, bound, found);
    }

    fn search_within(&self, lo: usize, hi: usize, query: [f64; 3], bound: f64, found: &mut Vec<usize>) {
        if hi <= lo {
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let position = self.order[mid];
        let point = self.points[position];
        if squared_distance(point, query) <= bound {
            found.push(position);
        }
        let axis = self.axes[mid];
        let offset = query[axis] - point[axis];
        if offset <= 0.0 || offset * offset <= bound {
            self.search_within(lo, mid, query, bound, found);
        }
        if offset >= 0.0 || offset * offset <= bound {
            self.search_within(mid + 1, hi, query, bound, found);
        }
    }
}
