//! Reading files a user names: only regular files, and never more than a limit. A device such as
//! `/dev/zero` would be read until memory runs out, and opening a named pipe blocks until
//! something writes to it, so both are refused before anything is read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The bytes of the regular file at `path`, at most `max_bytes` of them; anything else is a
/// message saying why (for the caller's typed error).
pub fn read_regular_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let metadata = std::fs::metadata(path).map_err(|e| format!("cannot read file: {e}"))?;
    check_regular(&metadata, max_bytes)?;
    let file = File::open(path).map_err(|e| format!("cannot read file: {e}"))?;
    // The path may have been replaced between the two looks; the open file is what is read.
    let opened = file.metadata().map_err(|e| format!("cannot read file: {e}"))?;
    check_regular(&opened, max_bytes)?;
    let expected = usize::try_from(opened.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(expected);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("cannot read file: {e}"))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max_bytes {
        return Err(too_large(max_bytes));
    }
    Ok(bytes)
}

fn check_regular(metadata: &std::fs::Metadata, max_bytes: u64) -> Result<(), String> {
    if metadata.is_dir() {
        return Err("is a directory, not a file".into());
    }
    if !metadata.is_file() {
        return Err("is not a regular file (a device, a named pipe or a socket); only files can be read".into());
    }
    if metadata.len() > max_bytes {
        return Err(too_large(max_bytes));
    }
    Ok(())
}

fn too_large(max_bytes: u64) -> String {
    format!("is larger than {max_bytes} bytes, the limit for this kind of file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_pipes_directories_and_large_files_are_refused() {
        let zero = read_regular_file(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(zero.contains("not a regular file"), "{zero}");
        assert!(read_regular_file(Path::new("/"), 1024).unwrap_err().contains("directory"));
        let dir = std::env::temp_dir().join(format!("sunflux-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pipe = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status().map(|s| s.success()).unwrap_or(false);
        if made {
            assert!(read_regular_file(&pipe, 1024).unwrap_err().contains("named pipe"));
        }
        let file = dir.join("data.txt");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_regular_file(&file, 10).unwrap(), b"0123456789");
        assert!(read_regular_file(&file, 9).unwrap_err().contains("larger than 9 bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
