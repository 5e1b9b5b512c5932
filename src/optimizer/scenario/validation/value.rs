//! The value the validator reads: a JSON-like tree that also says what Python would see in it
//! (an `int` or `float` subclass, a tuple, an arbitrary object), and the Python semantics the
//! rules and messages rely on: `repr`/`str` of values, `format(x, "g")`, `==` and ordering
//! between ints and floats, truthiness and `math.fsum`.
//!
//! Anything Rust cannot show or test itself (an object, a subclass instance, a big int) carries
//! a `Handle` that the `Host` (the Python binding) answers for; values decoded from JSON carry
//! none, so the embedded service validates without Python.

use std::cmp::Ordering;

use crate::optimizer::scenario::text::{float_repr, str_repr};

/// An index into the host's table of original objects.
pub type Handle = u32;

/// Why a check raised instead of answering (Python would raise the same way).
#[derive(Debug, Clone, PartialEq)]
pub enum Raised {
    /// The host raised while answering (it keeps the exception).
    Host,
    /// `ValueError` with its message (`math.fsum` of `inf` and `-inf`).
    ValueError(String),
    /// `OverflowError` with its message (a number too large for a float).
    OverflowError(String),
}

pub type Outcome<T> = Result<T, Raised>;

/// What Rust asks the owner of the original objects.
pub trait Host {
    fn repr(&self, handle: Handle) -> Outcome<String>;
    fn str(&self, handle: Handle) -> Outcome<String>;
    fn truthy(&self, handle: Handle) -> Outcome<bool>;
    fn type_name(&self, handle: Handle) -> Outcome<String>;
    /// `bool(object == other)`.
    fn equals(&self, handle: Handle, other: &Value) -> Outcome<bool>;
}

/// The host of values that carry no handles (decoded from JSON).
pub struct NoHost;

impl Host for NoHost {
    fn repr(&self, _: Handle) -> Outcome<String> {
        Err(Raised::Host)
    }
    fn str(&self, _: Handle) -> Outcome<String> {
        Err(Raised::Host)
    }
    fn truthy(&self, _: Handle) -> Outcome<bool> {
        Err(Raised::Host)
    }
    fn type_name(&self, _: Handle) -> Outcome<String> {
        Err(Raised::Host)
    }
    fn equals(&self, _: Handle, _: &Value) -> Outcome<bool> {
        Err(Raised::Host)
    }
}

/// Where a list or mapping came from: its original object, whether it is exactly a
/// `list`/`dict` (a subclass or another mapping is shown by the host), and whether a mapping
/// is a `dict` at all (an empty one is not "given"; an empty other mapping is).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Origin {
    pub handle: Option<Handle>,
    pub exact: bool,
    pub dict: bool,
}

impl Origin {
    /// A plain list or dict with no original object (decoded from JSON).
    pub const PLAIN: Origin = Origin { handle: None, exact: true, dict: true };
}

/// A mapping key: its text when it is a `str`, and how it shows when Rust cannot say (a key
/// that is not a str, or a str subclass).
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: Option<String>,
    pub shown: Option<String>,
}

impl Key {
    pub fn text(name: &str) -> Self {
        Key { name: Some(name.to_owned()), shown: None }
    }

    pub fn repr(&self) -> String {
        match (&self.shown, &self.name) {
            (Some(shown), _) => shown.clone(),
            (None, Some(name)) => str_repr(name),
            (None, None) => String::new(),
        }
    }
}

/// A value as Python would see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i128),
    /// An int beyond 128 bits: its sign, and its float value unless too large for one.
    BigInt { negative: bool, approx: Option<f64>, handle: Handle },
    Float(f64),
    Str(String),
    List(Vec<Value>, Origin),
    Map(Vec<(Key, Value)>, Origin),
    /// An instance of an `int`, `float` or `str` subclass (`numpy.float64`, an `IntEnum`):
    /// it behaves as `inner`, and the host shows it.
    Sub(Box<Value>, Handle),
    /// Anything else (a tuple, a numpy integer or array, any object): only the host knows it.
    Object(Handle),
}

/// A number as the rules compare it (`int` or `float`, not `bool`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i128),
    Big { negative: bool, approx: Option<f64> },
    Float(f64),
}

impl Value {
    /// A JSON value (numbers keep their kind: `1` is an int, `1.0` a float).
    pub fn from_json(value: &serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::None,
            serde_json::Value::Bool(flag) => Value::Bool(*flag),
            serde_json::Value::Number(number) => match (number.as_i64(), number.as_u64()) {
                (Some(int), _) => Value::Int(i128::from(int)),
                (None, Some(int)) => Value::Int(i128::from(int)),
                _ => Value::Float(number.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(text) => Value::Str(text.clone()),
            serde_json::Value::Array(items) => Value::List(items.iter().map(Value::from_json).collect(), Origin::PLAIN),
            serde_json::Value::Object(map) => Value::Map(map.iter().map(|(key, item)| (Key::text(key), Value::from_json(item))).collect(), Origin::PLAIN),
        }
    }

    /// The value with a subclass wrapper taken off (what `isinstance` sees).
    pub fn base(&self) -> &Value {
        match self {
            Value::Sub(inner, _) => inner,
            other => other,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }

    /// `isinstance(value, str)`.
    pub fn as_str(&self) -> Option<&str> {
        match self.base() {
            Value::Str(text) => Some(text),
            _ => None,
        }
    }

    /// `isinstance(value, list)`.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(items, _) => Some(items),
            _ => None,
        }
    }

    /// `isinstance(value, Mapping)`.
    pub fn as_map(&self) -> Option<&[(Key, Value)]> {
        match self {
            Value::Map(entries, _) => Some(entries),
            _ => None,
        }
    }

    /// `isinstance(value, (int, float)) and not isinstance(value, bool)`.
    pub fn number(&self) -> Option<Num> {
        match self.base() {
            Value::Int(int) => Some(Num::Int(*int)),
            Value::BigInt { negative, approx, .. } => Some(Num::Big { negative: *negative, approx: *approx }),
            Value::Float(float) => Some(Num::Float(*float)),
            _ => None,
        }
    }

    /// `isinstance(value, int) and not isinstance(value, bool)`.
    pub fn is_int(&self) -> bool {
        matches!(self.base(), Value::Int(_) | Value::BigInt { .. })
    }

    /// `value is True`.
    pub fn is_true(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// The service's notion of "provided": not None, "" or an empty list or dict.
    pub fn given(&self) -> bool {
        match self {
            Value::None => false,
            Value::Str(text) => !text.is_empty(),
            Value::Sub(inner, _) => !matches!(&**inner, Value::Str(text) if text.is_empty()),
            Value::List(items, _) => !items.is_empty(),
            Value::Map(entries, origin) => !(entries.is_empty() && origin.dict),
            _ => true,
        }
    }

    /// `bool(value)`.
    pub fn truthy(&self, host: &dyn Host) -> Outcome<bool> {
        Ok(match self {
            Value::None => false,
            Value::Bool(flag) => *flag,
            Value::Int(int) => *int != 0,
            Value::BigInt { .. } => true,
            Value::Float(float) => *float != 0.0,
            Value::Str(text) => !text.is_empty(),
            Value::List(_, Origin { handle: Some(handle), exact: false, .. }) | Value::Map(_, Origin { handle: Some(handle), exact: false, .. }) => return host.truthy(*handle),
            Value::List(items, _) => !items.is_empty(),
            Value::Map(entries, _) => !entries.is_empty(),
            Value::Sub(_, handle) | Value::Object(handle) => return host.truthy(*handle),
        })
    }

    /// `mapping.get(name)` (None when absent or not a mapping).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.as_map()?.iter().find(|(key, _)| key.name.as_deref() == Some(name)).map(|(_, value)| value)
    }

    /// `name in mapping`.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// `repr(value)`.
    pub fn repr(&self, host: &dyn Host) -> Outcome<String> {
        Ok(match self {
            Value::None => "None".to_owned(),
            Value::Bool(true) => "True".to_owned(),
            Value::Bool(false) => "False".to_owned(),
            Value::Int(int) => int.to_string(),
            Value::Float(float) => float_repr(*float),
            Value::Str(text) => str_repr(text),
            Value::List(items, Origin { exact: true, .. }) => {
                let shown = items.iter().map(|item| item.repr(host)).collect::<Outcome<Vec<_>>>()?;
                format!("[{}]", shown.join(", "))
            }
            Value::Map(entries, Origin { exact: true, .. }) => {
                let shown = entries.iter().map(|(key, item)| Ok(format!("{}: {}", key.repr(), item.repr(host)?))).collect::<Outcome<Vec<_>>>()?;
                format!("{{{}}}", shown.join(", "))
            }
            Value::List(_, Origin { handle, .. }) | Value::Map(_, Origin { handle, .. }) => host.repr(handle.ok_or(Raised::Host)?)?,
            Value::BigInt { handle, .. } | Value::Sub(_, handle) | Value::Object(handle) => host.repr(*handle)?,
        })
    }

    /// `str(value)` (what an f-string shows).
    pub fn str(&self, host: &dyn Host) -> Outcome<String> {
        match self {
            Value::Str(text) => Ok(text.clone()),
            Value::BigInt { handle, .. } | Value::Sub(_, handle) | Value::Object(handle) => host.str(*handle),
            Value::List(_, Origin { handle: Some(handle), exact: false, .. }) | Value::Map(_, Origin { handle: Some(handle), exact: false, .. }) => host.str(*handle),
            other => other.repr(host),
        }
    }

    /// `type(value).__name__`.
    pub fn type_name(&self, host: &dyn Host) -> Outcome<String> {
        Ok(match self {
            Value::None => "NoneType".to_owned(),
            Value::Bool(_) => "bool".to_owned(),
            Value::Int(_) => "int".to_owned(),
            Value::Float(_) => "float".to_owned(),
            Value::Str(_) => "str".to_owned(),
            Value::List(_, Origin { exact: true, .. }) => "list".to_owned(),
            Value::Map(_, Origin { exact: true, .. }) => "dict".to_owned(),
            Value::List(_, Origin { handle, .. }) | Value::Map(_, Origin { handle, .. }) => host.type_name(handle.ok_or(Raised::Host)?)?,
            Value::BigInt { handle, .. } | Value::Sub(_, handle) | Value::Object(handle) => host.type_name(*handle)?,
        })
    }

    /// `bool(value == other)` for any value: an object the host holds compares itself (a numpy
    /// array answers elementwise, and its truth then raises as in Python).
    pub fn equals(&self, other: &Value, host: &dyn Host) -> Outcome<bool> {
        match self {
            Value::Object(handle) | Value::Sub(_, handle) | Value::BigInt { handle, .. } => host.equals(*handle, other),
            Value::List(_, Origin { handle: Some(handle), exact: false, .. }) | Value::Map(_, Origin { handle: Some(handle), exact: false, .. }) => host.equals(*handle, other),
            _ => Ok(self.py_eq(other)),
        }
    }

    /// `value == other` for the values the rules compare (numbers, strings, booleans; `True == 1`).
    pub fn py_eq(&self, other: &Value) -> bool {
        let as_num = |value: &Value| match value.base() {
            Value::Bool(flag) => Some(Num::Int(i128::from(*flag))),
            _ => value.number(),
        };
        match (self.base(), other.base()) {
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::None, Value::None) => true,
            (Value::List(a, _), Value::List(b, _)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y)),
            _ => match (as_num(self), as_num(other)) {
                (Some(a), Some(b)) => compare(a, b) == Some(Ordering::Equal),
                _ => false,
            },
        }
    }
}

/// Python's ordering of two numbers (None when a NaN is involved), exact between ints and floats.
pub fn compare(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Float(y)) => int_float(x, y),
        (Num::Float(x), Num::Int(y)) => int_float(y, x).map(Ordering::reverse),
        (Num::Big { negative: a_neg, approx: a_approx }, Num::Big { negative: b_neg, approx: b_approx }) => match (a_neg, b_neg) {
            (true, false) => Some(Ordering::Less),
            (false, true) => Some(Ordering::Greater),
            _ => {
                let infinite = if a_neg { f64::NEG_INFINITY } else { f64::INFINITY };
                a_approx.unwrap_or(infinite).partial_cmp(&b_approx.unwrap_or(infinite))
            }
        },
        (Num::Big { negative, .. }, other) => big_other(negative, other),
        (other, Num::Big { negative, .. }) => big_other(negative, other).map(Ordering::reverse),
    }
}

/// An int beyond 128 bits against an int or float that fits (only an infinity or NaN is
/// beyond it).
fn big_other(negative: bool, other: Num) -> Option<Ordering> {
    match other {
        Num::Float(float) if float.is_nan() => None,
        Num::Float(float) if float == f64::INFINITY => Some(Ordering::Less),
        Num::Float(float) if float == f64::NEG_INFINITY => Some(Ordering::Greater),
        _ if negative => Some(Ordering::Less),
        _ => Some(Ordering::Greater),
    }
}

#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn int_float(int: i128, float: f64) -> Option<Ordering> {
    if float.is_nan() {
        return None;
    }
    let near = int as f64;
    match near.partial_cmp(&float)? {
        // `near` is a whole number within i128's range, so `float` is too.
        Ordering::Equal => Some(int.cmp(&(float as i128))),
        order => Some(order),
    }
}

/// `num > other` by Python's rules (False with a NaN).
pub fn greater(a: Num, b: Num) -> bool {
    compare(a, b) == Some(Ordering::Greater)
}

/// `num < other` by Python's rules (False with a NaN).
pub fn less(a: Num, b: Num) -> bool {
    compare(a, b) == Some(Ordering::Less)
}

/// `float(num)`, which raises for an int too large for a float.
#[allow(clippy::cast_precision_loss)]
pub fn to_float(num: Num) -> Outcome<f64> {
    match num {
        Num::Int(int) => Ok(int as f64),
        Num::Float(float) => Ok(float),
        Num::Big { approx: Some(float), .. } => Ok(float),
        Num::Big { approx: None, .. } => Err(Raised::OverflowError("int too large to convert to float".into())),
    }
}

/// `max(items)`: the first of the largest (Python replaces the running maximum only when an
/// item is greater, so NaNs keep their place).
pub fn py_max(items: &[Value]) -> Option<&Value> {
    let mut items = items.iter();
    let mut best = items.next()?;
    for item in items {
        if let (Some(a), Some(b)) = (item.number(), best.number()) {
            if greater(a, b) {
                best = item;
            }
        }
    }
    Some(best)
}

/// `math.fsum(numbers)`: the correctly rounded sum (Shewchuk's algorithm, as CPython does it,
/// with its rules for infinities, NaNs and overflow).
pub fn fsum(numbers: &[f64]) -> Outcome<f64> {
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0_f64;
    let mut inf_sum = 0.0_f64;
    for &number in numbers {
        let mut x = number;
        let mut kept = 0;
        for index in 0..partials.len() {
            let y = partials.get(index).copied().unwrap_or_default();
            let (big, small) = if x.abs() < y.abs() { (y, x) } else { (x, y) };
            let high = big + small;
            let low = small - (high - big);
            if low != 0.0 {
                if let Some(slot) = partials.get_mut(kept) {
                    *slot = low;
                }
                kept += 1;
            }
            x = high;
        }
        partials.truncate(kept);
        if x != 0.0 {
            if !x.is_finite() {
                if number.is_finite() {
                    return Err(Raised::OverflowError("intermediate overflow in fsum".into()));
                }
                if number.is_infinite() {
                    inf_sum += number;
                }
                special += number;
                partials.clear();
            } else {
                partials.push(x);
            }
        }
    }
    if special != 0.0 {
        if inf_sum.is_nan() {
            return Err(Raised::ValueError("-inf + inf in fsum".into()));
        }
        return Ok(special);
    }
    let mut high = 0.0;
    let mut index = partials.len();
    if index > 0 {
        index -= 1;
        high = partials.get(index).copied().unwrap_or_default();
        let mut low = 0.0;
        while index > 0 {
            index -= 1;
            let x = high;
            let y = partials.get(index).copied().unwrap_or_default();
            high = x + y;
            let yr = high - x;
            low = y - yr;
            if low != 0.0 {
                break;
            }
        }
        if index > 0 {
            let below = partials.get(index - 1).copied().unwrap_or_default();
            if (low < 0.0 && below < 0.0) || (low > 0.0 && below > 0.0) {
                let y = low * 2.0;
                let x = high + y;
                let yr = x - high;
                if y == yr {
                    high = x;
                }
            }
        }
    }
    Ok(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_and_constants_show_as_python_does() {
        let list = Value::List(vec![Value::Int(1), Value::Float(2.0), Value::Str("a".into()), Value::None, Value::Bool(true)], Origin::PLAIN);
        assert_eq!(list.repr(&NoHost).unwrap(), "[1, 2.0, 'a', None, True]");
        let map = Value::Map(vec![(Key::text("k"), Value::Float(f64::NAN))], Origin::PLAIN);
        assert_eq!(map.str(&NoHost).unwrap(), "{'k': nan}");
        assert_eq!(Value::Str("x".into()).str(&NoHost).unwrap(), "x");
    }

    #[test]
    fn numbers_compare_as_python_does() {
        assert!(Value::Int(1).py_eq(&Value::Float(1.0)));
        assert!(Value::Bool(true).py_eq(&Value::Int(1)));
        assert!(!Value::Str("1".into()).py_eq(&Value::Int(1)));
        assert_eq!(compare(Num::Int(9007199254740993), Num::Float(9007199254740992.0)), Some(Ordering::Greater));
        assert_eq!(compare(Num::Float(f64::NAN), Num::Int(1)), None);
        assert!(greater(Num::Big { negative: false, approx: None }, Num::Float(1e300)));
    }

    #[test]
    fn fsum_is_exact_and_raises_as_python_does() {
        assert_eq!(fsum(&[0.1; 10]).unwrap(), 1.0);
        assert_eq!(fsum(&[1e100, 1.0, -1e100]).unwrap(), 1.0);
        assert!(fsum(&[f64::NAN, 1.0]).unwrap().is_nan());
        assert_eq!(fsum(&[f64::INFINITY, 1.0]).unwrap(), f64::INFINITY);
        assert!(matches!(fsum(&[f64::INFINITY, f64::NEG_INFINITY]), Err(Raised::ValueError(_))));
        assert!(matches!(fsum(&[1e308, 1e308]), Err(Raised::OverflowError(_))));
    }

    #[test]
    fn max_keeps_the_first_of_the_largest() {
        let items = [Value::Float(f64::NAN), Value::Int(3)];
        assert!(py_max(&items).is_some_and(|v| matches!(v, Value::Float(f) if f.is_nan())));
        let items = [Value::Int(2), Value::Float(2.0), Value::Int(1)];
        assert_eq!(py_max(&items), Some(&Value::Int(2)));
    }
}
