//! `sunflux._core.optimizer_validate_*`: the optimizer scenario validator
//! (`optimizer::scenario::validation`) on Python objects. Each object becomes a validator
//! `Value` directly (no JSON text: NaN, tuples, big ints, non-str keys, numpy scalars and any
//! other object keep what Python would see in them); what Rust cannot show or test itself
//! stays in a side table that answers `repr`, `str`, `bool` and `type` for it, and each
//! problem's offending value comes back as the original object. Also the schema's embedded
//! text (`optimizer_sections_json`), and the import-time check that it is a schema.

use std::cell::RefCell;

use pyo3::exceptions::{PyAttributeError, PyImportError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString};

use crate::optimizer::scenario::schema;
use crate::optimizer::scenario::validation::{self, Handle, Host, Key, Origin, Outcome, Problem, Raised, Shown, Value};

/// Containers nested deeper than this are not read (no rule looks below the seventh level;
/// a list that holds itself must not recurse forever): they keep their object, which shows them.
const DEEPEST: usize = 32;

/// A problem as `(section, field, path, rule, value, message)`.
type ProblemRow = (String, String, String, String, Py<PyAny>, String);

/// The original objects behind the handles, and the exception a question about one raised.
struct ObjectTable<'py> {
    objects: Vec<Bound<'py, PyAny>>,
    raised: RefCell<Option<PyErr>>,
}

impl<'py> ObjectTable<'py> {
    fn new() -> Self {
        ObjectTable { objects: Vec::new(), raised: RefCell::new(None) }
    }

    fn keep(&mut self, object: &Bound<'py, PyAny>) -> Handle {
        self.objects.push(object.clone());
        Handle::try_from(self.objects.len() - 1).unwrap_or(Handle::MAX)
    }

    fn ask<T>(&self, handle: Handle, question: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<T>) -> Outcome<T> {
        let object = usize::try_from(handle).ok().and_then(|index| self.objects.get(index)).ok_or(Raised::Host)?;
        question(object).map_err(|error| {
            self.raised.replace(Some(error));
            Raised::Host
        })
    }

    fn error(&self, raised: Raised) -> PyErr {
        match raised {
            Raised::Host => self.raised.take().unwrap_or_else(|| PyValueError::new_err("the scenario could not be validated")),
            Raised::ValueError(message) => PyValueError::new_err(message),
            Raised::OverflowError(message) => PyOverflowError::new_err(message),
        }
    }

    /// The validator's view of an object `depth` containers down.
    fn value(&mut self, object: &Bound<'py, PyAny>, depth: usize) -> PyResult<Value> {
        // Series are long lists of plain floats: one type comparison each.
        if let Ok(float) = object.cast_exact::<PyFloat>() {
            return Ok(Value::Float(float.value()));
        }
        if let Ok(float) = object.cast::<PyFloat>() {
            let number = Value::Float(float.value());
            return Ok(if object.is_exact_instance_of::<PyFloat>() { number } else { Value::Sub(Box::new(number), self.keep(object)) });
        }
        if let Ok(flag) = object.cast::<PyBool>() {
            return Ok(Value::Bool(flag.is_true()));
        }
        if object.is_instance_of::<PyInt>() {
            let number = match object.extract::<i128>() {
                Ok(int) => Value::Int(int),
                Err(_) => Value::BigInt { negative: object.lt(0)?, approx: object.extract::<f64>().ok(), handle: self.keep(object) },
            };
            return Ok(if object.is_exact_instance_of::<PyInt>() || matches!(number, Value::BigInt { .. }) { number } else { Value::Sub(Box::new(number), self.keep(object)) });
        }
        if let Ok(text) = object.cast::<PyString>() {
            return Ok(match (text.to_str(), object.is_exact_instance_of::<PyString>()) {
                (Ok(text), true) => Value::Str(text.to_owned()),
                (text, _) => {
                    let text = text.map_or_else(|_| text_lossy(object), str::to_owned);
                    Value::Sub(Box::new(Value::Str(text)), self.keep(object))
                }
            });
        }
        if object.is_none() {
            return Ok(Value::None);
        }
        if depth > DEEPEST && (object.is_instance_of::<PyList>() || object.is_instance_of::<PyMapping>()) {
            let origin = Origin { handle: Some(self.keep(object)), exact: false, dict: object.is_instance_of::<PyDict>() };
            return Ok(if object.is_instance_of::<PyList>() { Value::List(Vec::new(), origin) } else { Value::Map(Vec::new(), origin) });
        }
        if let Ok(list) = object.cast::<PyList>() {
            let items = list.iter().map(|item| self.value(&item, depth + 1)).collect::<PyResult<Vec<_>>>()?;
            let origin = Origin { handle: Some(self.keep(object)), exact: object.is_exact_instance_of::<PyList>(), dict: true };
            return Ok(Value::List(items, origin));
        }
        if let Ok(dict) = object.cast::<PyDict>() {
            let mut entries = Vec::with_capacity(dict.len());
            for (key, item) in dict.iter() {
                entries.push((key_of(&key)?, self.value(&item, depth + 1)?));
            }
            let origin = Origin { handle: Some(self.keep(object)), exact: object.is_exact_instance_of::<PyDict>(), dict: true };
            return Ok(Value::Map(entries, origin));
        }
        if object.is_instance_of::<PyMapping>() {
            let mut entries = Vec::new();
            for pair in object.call_method0("items")?.try_iter()? {
                let (key, item): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair?.extract()?;
                entries.push((key_of(&key)?, self.value(&item, depth + 1)?));
            }
            let origin = Origin { handle: Some(self.keep(object)), exact: false, dict: false };
            return Ok(Value::Map(entries, origin));
        }
        Ok(Value::Object(self.keep(object)))
    }

    /// A problem's offending value as a Python object (the original one when it is from the input).
    fn object(&self, py: Python<'py>, value: &Value) -> PyResult<Py<PyAny>> {
        let original = |handle: Handle| usize::try_from(handle).ok().and_then(|index| self.objects.get(index)).map(|object| object.clone().unbind());
        let kept = match value {
            Value::List(_, origin) | Value::Map(_, origin) => origin.handle.and_then(original),
            Value::BigInt { handle, .. } | Value::Sub(_, handle) | Value::Object(handle) => original(*handle),
            _ => None,
        };
        if let Some(object) = kept {
            return Ok(object);
        }
        Ok(match value {
            Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any().unbind(),
            Value::Int(int) => int.into_pyobject(py)?.into_any().unbind(),
            Value::Float(float) => PyFloat::new(py, *float).into_any().unbind(),
            Value::Str(text) => PyString::new(py, text).into_any().unbind(),
            Value::List(items, _) => PyList::new(py, items.iter().map(|item| self.object(py, item)).collect::<PyResult<Vec<_>>>()?)?.into_any().unbind(),
            Value::Map(entries, _) => {
                let dict = PyDict::new(py);
                for (key, item) in entries {
                    dict.set_item(key.name.clone().unwrap_or_default(), self.object(py, item)?)?;
                }
                dict.into_any().unbind()
            }
            _ => py.None(),
        })
    }

    fn rows(&self, py: Python<'py>, problems: Outcome<Vec<Problem<'_>>>) -> PyResult<Vec<ProblemRow>> {
        let problems = problems.map_err(|raised| self.error(raised))?;
        problems
            .into_iter()
            .map(|problem| {
                let value = match &problem.value {
                    Shown::Nothing => py.None(),
                    Shown::Input(value) => self.object(py, value)?,
                    Shown::Made(value) => self.object(py, value)?,
                };
                Ok((problem.section, problem.field, problem.path, problem.rule, value, problem.message))
            })
            .collect()
    }
}

impl Host for ObjectTable<'_> {
    fn repr(&self, handle: Handle) -> Outcome<String> {
        self.ask(handle, |object| Ok(object.repr()?.to_string()))
    }
    fn str(&self, handle: Handle) -> Outcome<String> {
        self.ask(handle, |object| Ok(object.str()?.to_string()))
    }
    fn truthy(&self, handle: Handle) -> Outcome<bool> {
        self.ask(handle, |object| object.is_truthy())
    }
    fn type_name(&self, handle: Handle) -> Outcome<String> {
        self.ask(handle, |object| Ok(object.get_type().name()?.to_string()))
    }
    fn equals(&self, handle: Handle, other: &Value) -> Outcome<bool> {
        self.ask(handle, |object| object.eq(self.object(object.py(), other)?))
    }
}

/// The text of a str that does not encode as UTF-8 (a lone surrogate), for comparisons only
/// (the object itself shows it).
fn text_lossy(object: &Bound<'_, PyAny>) -> String {
    object.str().map(|text| text.to_string_lossy().into_owned()).unwrap_or_default()
}

fn key_of(key: &Bound<'_, PyAny>) -> PyResult<Key> {
    if key.is_exact_instance_of::<PyString>() {
        if let Ok(text) = key.cast::<PyString>()?.to_str() {
            return Ok(Key::text(text));
        }
    }
    let shown = Some(key.repr()?.to_string());
    let name = key.cast::<PyString>().ok().map(|text| text.to_string_lossy().into_owned());
    Ok(Key { name, shown })
}

/// Every problem of a scenario given as plain Python data, as
/// `(section, field, path, rule, value, message)` rows.
#[pyfunction]
pub fn optimizer_validate_scenario(py: Python<'_>, scenario: &Bound<'_, PyAny>) -> PyResult<Vec<ProblemRow>> {
    let mut table = ObjectTable::new();
    let value = table.value(scenario, 0)?;
    let problems = validation::validate_scenario(&value, &table);
    table.rows(py, problems)
}

/// The problems of one known section on its own (its fields and in-section rules).
#[pyfunction]
pub fn optimizer_validate_section(py: Python<'_>, key: &str, values: &Bound<'_, PyAny>, time_steps_per_hour: &Bound<'_, PyAny>) -> PyResult<Vec<ProblemRow>> {
    let mut table = ObjectTable::new();
    let value = table.value(values, 0)?;
    if value.as_map().is_none() {
        let kind = values.get_type().name()?;
        return Err(PyAttributeError::new_err(format!("'{kind}' object has no attribute 'items'")));
    }
    let steps = table.value(time_steps_per_hour, 0)?;
    let problems = validation::validate_section(key, &value, &steps, &table).unwrap_or_else(|| Ok(Vec::new()));
    table.rows(py, problems)
}

/// Why a mapping is not an optimizer scenario, from its keys.
#[pyfunction]
pub fn optimizer_not_a_scenario_message(document: &Bound<'_, PyAny>) -> PyResult<String> {
    let keys = document.try_iter()?.map(|key| key_of(&key?)).collect::<PyResult<Vec<_>>>()?;
    Ok(validation::not_a_scenario_message(&keys))
}

/// The optimizer schema's text, embedded at build time (`data/optimizer/sections.json`): the
/// package's section classes and validation tables read it from here, so they and the Rust
/// validator read one file.
#[pyfunction]
pub fn optimizer_sections_json() -> &'static str {
    schema::SECTIONS_JSON
}

/// Refuses to load `sunflux._core` when its embedded schema is broken, with what is wrong.
pub fn check_embedded_schema() -> PyResult<()> {
    schema::check_embedded().map_err(PyImportError::new_err)
}
