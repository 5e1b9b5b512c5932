//! The disk cache of `resolve`: one JSON file per fetched input, `<folder>/<kind>/<sha256>.json`,
//! named by the SHA-256 of its key (the service's base URL and every input of the request, never
//! the API key). The file holds the key beside the value and the key is compared on read, so a
//! collision, a damaged file or a file of an older layout is a miss. Files are written to a
//! temporary name and renamed, so a reader never sees half a file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use aws_lc_rs::digest::{digest, SHA256};
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

/// Bumped when the layout of cached files changes (older files become misses). 2: the key is
/// hashed as Rust writes it (format 1 files, written by the Python cache, are misses).
pub const CACHE_FORMAT: u32 = 2;

/// Tells apart the temporary files of one process's concurrent writes.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// JSON values by key under a folder; without a folder it keeps nothing.
pub struct DiskCache {
    folder: Option<PathBuf>,
}

/// Where one key's value lives and what its file must hold to be a hit.
pub struct Entry {
    path: Option<PathBuf>,
    key: Value,
}

impl DiskCache {
    pub fn new(folder: Option<PathBuf>) -> Self {
        DiskCache { folder }
    }

    /// The entry of `key` (an object of the request's inputs) among values of `kind`.
    pub fn entry(&self, kind: &str, key: Map<String, Value>) -> Entry {
        let mut stored = Map::from_iter([("format".to_owned(), Value::from(CACHE_FORMAT)), ("kind".to_owned(), Value::from(kind))]);
        stored.extend(key);
        let key = Value::Object(stored);
        let path = self.folder.as_ref().map(|folder| folder.join(kind).join(format!("{}.json", sha256_hex(key.to_string().as_bytes()))));
        Entry { path, key }
    }
}

impl Entry {
    /// The stored value when the file exists, is JSON and holds this very key.
    pub fn read(&self) -> Option<Value> {
        let text = fs::read(self.path.as_ref()?).ok()?;
        let Value::Object(mut stored) = serde_json::from_slice(&text).ok()? else { return None };
        (stored.get("key") == Some(&self.key)).then(|| stored.remove("value")).flatten()
    }

    /// Keeps `value` (nothing without a folder); `ParameterError` when the folder cannot be written.
    pub fn write(&self, value: &Value) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        let text = json!({"key": self.key, "value": value}).to_string();
        write_atomically(path, text.as_bytes()).map_err(|e| Error::Parameter(vec![format!("the cache file {} could not be written: {e}", path.display())]))
    }
}

/// Writes `bytes` beside `path` under a temporary name, then renames it into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(folder)?;
    let temporary = folder.join(format!(".{}.{}.part", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
    let written = fs::File::create(&temporary).and_then(|mut file| file.write_all(bytes)).and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

fn sha256_hex(bytes: &[u8]) -> String {
    digest(&SHA256, bytes).as_ref().iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("sunflux-cache-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        folder
    }

    fn key(label: &str) -> Map<String, Value> {
        Map::from_iter([("service".to_owned(), Value::from("http://127.0.0.1:1")), ("label".to_owned(), Value::from(label))])
    }

    #[test]
    fn a_written_value_is_read_back_under_its_hashed_name() {
        let root = folder("hit");
        let cache = DiskCache::new(Some(root.clone()));
        let entry = cache.entry("urdb_rate", key("a"));
        assert_eq!(entry.read(), None);
        entry.write(&json!({"label": "a"})).unwrap();
        assert_eq!(cache.entry("urdb_rate", key("a")).read(), Some(json!({"label": "a"})));
        assert_eq!(cache.entry("urdb_rate", key("b")).read(), None);
        let files: Vec<PathBuf> = fs::read_dir(root.join("urdb_rate")).unwrap().map(|e| e.unwrap().path()).collect();
        let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!((files.len(), name.len()), (1, 64 + ".json".len()), "one file, no temporary left: {files:?}");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_damaged_file_or_another_key_is_a_miss() {
        let root = folder("miss");
        let cache = DiskCache::new(Some(root.clone()));
        let entry = cache.entry("urdb_rate", key("a"));
        entry.write(&json!(1)).unwrap();
        let path = entry.path.clone().unwrap();
        fs::write(&path, "damaged").unwrap();
        assert_eq!(entry.read(), None);
        let other = cache.entry("urdb_rate", key("other"));
        fs::write(&path, json!({"key": other.key, "value": 2}).to_string()).unwrap();
        assert_eq!(entry.read(), None, "a file holding another key (a collision) is a miss");
        fs::write(&path, json!({"key": entry.key}).to_string()).unwrap();
        assert_eq!(entry.read(), None, "a file without a value is a miss");
        entry.write(&json!(3)).unwrap();
        assert_eq!(entry.read(), Some(json!(3)), "a miss is overwritten");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn without_a_folder_nothing_is_kept_and_an_unwritable_folder_is_named() {
        let entry = DiskCache::new(None).entry("urdb_rate", key("a"));
        entry.write(&json!(1)).unwrap();
        assert_eq!(entry.read(), None);
        let root = folder("blocked");
        fs::write(&root, "a file where the folder should be").unwrap();
        let Err(Error::Parameter(problems)) = DiskCache::new(Some(root.clone())).entry("urdb_rate", key("a")).write(&json!(1)) else { panic!("written") };
        assert!(problems[0].starts_with("the cache file ") && problems[0].contains("could not be written"), "{problems:?}");
        fs::remove_file(root).unwrap();
    }
}
