//! Deletion vectors (DVs): the rows of a Delta table's data file that a
//! later `DELETE`, `UPDATE` or `MERGE` marked deleted without rewriting the
//! file, as Spark and Databricks write them by default.
//!
//! An `add` names its DV with a descriptor ([`Descriptor`]): inline in the
//! log (`storageType` `i`, the bytes in Z85), in a file under the table
//! named by a UUID (`u`: `<prefix>/deletion_vector_<uuid>.bin`), or at an
//! absolute path (`p`, read only when it lies inside the table). A DV file
//! is a version byte (1), then at the descriptor's offset each DV's size
//! (4 bytes, big-endian), its bytes, and their CRC-32 (big-endian). The
//! bytes are a `RoaringBitmapArray`: the magic number 1681511377, then a
//! 64-bit Roaring bitmap in the portable format (a little-endian u64 count
//! of 32-bit bitmaps, each a little-endian u32 key, the high half of its
//! values, and a 32-bit Roaring bitmap in the portable format). Its values
//! are row indexes within the data file (0-based, across row groups).
//!
//! The Roaring decoder is written here rather than taken from the
//! `roaring` crate, whose `RoaringTreemap` reads the same portable format
//! (`delta_kernel` uses it): the decoder is about 130 lines, it adds no
//! dependency, and it hands over ranges of values, so runs that claim
//! millions of rows cost their four bytes each until they are counted
//! against the file's rows, where a bitmap built in memory would be as
//! large as the bytes claim.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use crate::data::error::DataError;

/// The magic number of the portable `RoaringBitmapArray` format.
const MAGIC: u32 = 1_681_511_377;
/// The magic number of Delta's older native format, which nothing writes
/// to a table (it is named when refused).
const NATIVE_MAGIC: u32 = 1_681_511_376;
/// The version byte a DV file starts with.
const FILE_VERSION: u8 = 1;
/// The characters of a Z85 UUID, after the random prefix.
const UUID_CHARS: usize = 20;

/// Where a DV is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Storage {
    /// `i`: in the log, Z85-encoded.
    Inline,
    /// `u`: in a file under the table named by a UUID.
    Uuid,
    /// `p`: in a file at an absolute path.
    Absolute,
}

impl Storage {
    fn letter(self) -> char {
        match self {
            Storage::Inline => 'i',
            Storage::Uuid => 'u',
            Storage::Absolute => 'p',
        }
    }
}

/// A `deletionVector` of an `add` or `remove` action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Descriptor {
    pub(crate) storage: Storage,
    pub(crate) path_or_inline: String,
    pub(crate) offset: Option<u64>,
    /// The bytes of the serialized bitmap (inline: before Z85).
    pub(crate) size: u64,
    /// The rows it deletes.
    pub(crate) cardinality: u64,
}

impl Descriptor {
    /// The descriptor an `add` or `remove` action holds, if any.
    pub(super) fn of(action: &serde_json::Value) -> Result<Option<Descriptor>, DataError> {
        let dv = match action.get("deletionVector") {
            None | Some(serde_json::Value::Null) => return Ok(None),
            Some(dv) => dv,
        };
        let text = |key: &'static str| {
            dv.get(key)
                .and_then(serde_json::Value::as_str)
                .ok_or(DataError::DvKeyMissing { key })
        };
        let number = |key: &'static str| match dv.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| DataError::DvNotCount {
                key,
                value: v.clone(),
            }),
        };
        let storage = match text("storageType")? {
            "i" => Storage::Inline,
            "u" => Storage::Uuid,
            "p" => Storage::Absolute,
            other => {
                return Err(DataError::DvStorage {
                    storage: other.to_string(),
                });
            }
        };
        let required = |key: &'static str| number(key)?.ok_or(DataError::DvKeyMissing { key });
        Ok(Some(Descriptor {
            storage,
            path_or_inline: text("pathOrInlineDv")?.to_string(),
            offset: number("offset")?,
            size: required("sizeInBytes")?,
            cardinality: required("cardinality")?,
        }))
    }

    /// The protocol's `uniqueId`: with the path, the key of a logical
    /// file of the table.
    pub(super) fn unique_id(&self) -> String {
        let mut id = format!("{}{}", self.storage.letter(), self.path_or_inline);
        if let Some(offset) = self.offset {
            id.push_str(&format!("@{offset}"));
        }
        id
    }

    /// The serialized bitmap (its `RoaringBitmapArray` bytes): decoded
    /// from the log, or read from its file under `table` and checked
    /// against the size and checksum stored with it.
    pub(super) fn bitmap(&self, table: &Path) -> Result<Vec<u8>, DataError> {
        let size = usize::try_from(self.size).map_err(|_| DataError::DvTooLarge)?;
        match self.storage {
            Storage::Inline => {
                let mut bytes = z85(&self.path_or_inline)
                    .map_err(|e| DataError::DvInlineNotZ85(Box::new(e)))?;
                if bytes.len() < size {
                    return Err(DataError::DvInlineShort {
                        held: bytes.len(),
                        size,
                    });
                }
                // Z85 encodes 4 bytes at a time: the writer padded the rest.
                bytes.truncate(size);
                Ok(bytes)
            }
            Storage::Uuid | Storage::Absolute => {
                let rel = self.file(table)?;
                stored(&table.join(&rel), self.offset.unwrap_or(0), size).map_err(|e| {
                    DataError::DvFile {
                        file: rel.display().to_string(),
                        source: Box::new(e),
                    }
                })
            }
        }
    }

    /// The DV file, relative to the table: never outside it.
    fn file(&self, table: &Path) -> Result<PathBuf, DataError> {
        let text = &self.path_or_inline;
        if self.storage == Storage::Uuid {
            let split = text
                .len()
                .checked_sub(UUID_CHARS)
                .filter(|&i| text.is_char_boundary(i))
                .ok_or_else(|| DataError::DvNoUuid { path: text.clone() })?;
            let (prefix, uuid) = text.split_at(split);
            let uuid = z85(uuid).map_err(|e| DataError::DvUuidNotZ85(Box::new(e)))?;
            let plain = |c: &str| {
                !c.is_empty()
                    && c.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            };
            if !prefix.is_empty() && !prefix.split('/').all(plain) {
                return Err(DataError::DvPrefix {
                    prefix: prefix.to_string(),
                });
            }
            return Ok(Path::new(prefix).join(format!("deletion_vector_{}.bin", uuid_text(&uuid))));
        }
        // `p`: a URI, as an action's path is; read only inside the table.
        let outside = || DataError::DvOutside { path: text.clone() };
        let local = if let Some(rest) = text.strip_prefix("file://") {
            rest
        } else if let Some(rest) = text.strip_prefix("file:") {
            rest
        } else if text.contains("://") {
            return Err(outside());
        } else {
            text.as_str()
        };
        let decoded = super::percent_decode(local);
        // `file:///C:/t` on Windows: the path is what follows the slash.
        let decoded = match decoded.strip_prefix('/') {
            Some(rest) if cfg!(windows) && rest.get(1..2) == Some(":") => rest.to_string(),
            _ => decoded,
        };
        let path = Path::new(&decoded);
        if !path.is_absolute()
            || path.components().any(|c| {
                !matches!(
                    c,
                    Component::Normal(_) | Component::RootDir | Component::Prefix(_)
                )
            })
        {
            return Err(outside());
        }
        let canonical = table.canonicalize().ok();
        [Some(table.to_path_buf()), canonical]
            .into_iter()
            .flatten()
            .find_map(|root| path.strip_prefix(root).ok().map(Path::to_path_buf))
            .filter(|rel| rel.components().next().is_some())
            .ok_or_else(outside)
    }
}

/// Which of a data file's `rows` rows a DV deletes.
pub(super) struct Marks {
    /// Deleted, by row index.
    pub(crate) deleted: Vec<bool>,
    /// How many rows it deletes.
    pub(crate) dropped: u64,
    /// How many of its values are past the file's last row.
    pub(crate) beyond: u64,
}

/// Mark the rows the serialized bitmap `bytes` deletes of a file of
/// `rows` rows.
pub(super) fn mark(bytes: &[u8], rows: usize) -> Result<Marks, DataError> {
    let mut marks = Marks {
        deleted: vec![false; rows],
        dropped: 0,
        beyond: 0,
    };
    let end_of_file = rows as u64;
    bitmap_array(bytes, &mut |start, end| {
        let inside = end.min(end_of_file);
        for r in start..inside {
            let cell = &mut marks.deleted[r as usize];
            if !*cell {
                *cell = true;
                marks.dropped += 1;
            }
        }
        marks.beyond += end - start.max(inside);
    })?;
    Ok(marks)
}

/// The bytes of the DV of `size` bytes at `offset` of the DV file `path`,
/// read through the guarded reader, its size and checksum checked.
fn stored(path: &Path, offset: u64, size: usize) -> Result<Vec<u8>, DataError> {
    let (mut file, len) = crate::untrusted::open(path).map_err(DataError::Refused)?;
    let mut version = [0u8; 1];
    file.read_exact(&mut version)
        .map_err(DataError::DvVersionUnreadable)?;
    if version[0] != FILE_VERSION {
        return Err(DataError::DvVersion {
            found: version[0],
            wanted: FILE_VERSION,
        });
    }
    if offset.saturating_add(size as u64).saturating_add(8) > len {
        return Err(DataError::DvFileShort { len, size, offset });
    }
    let mut framed = vec![0u8; size + 8];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut framed))
        .map_err(|source| DataError::DvBytesUnreadable {
            wanted: size + 8,
            offset,
            source,
        })?;
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let said = be(&framed[..4]);
    if said as usize != size {
        return Err(DataError::DvSize { offset, said, size });
    }
    let stored_crc = be(&framed[size + 4..]);
    let bytes = framed[4..size + 4].to_vec();
    let crc = crc32(&bytes)?;
    if crc != stored_crc {
        return Err(DataError::DvChecksum {
            offset,
            crc,
            stored: stored_crc,
        });
    }
    Ok(bytes)
}

/// The CRC-32 (IEEE) of `bytes`. `crc32fast` comes with the `parquet`
/// feature (the `parquet` crate's gzip codec uses it already); without
/// the feature no data file of a Delta table is read, so neither is a DV.
fn crc32(bytes: &[u8]) -> Result<u32, DataError> {
    #[cfg(feature = "parquet")]
    {
        Ok(crc32fast::hash(bytes))
    }
    #[cfg(not(feature = "parquet"))]
    {
        let _ = bytes;
        Err(DataError::DvNeedsParquet)
    }
}

/// The canonical text of the 16 bytes of a UUID.
fn uuid_text(b: &[u8]) -> String {
    let hex = crate::hash::hex(b);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The Z85 alphabet (ZeroMQ RFC 32): each five characters, a base-85
/// big-endian number, are four bytes.
const Z85: &[u8; 85] =
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/// The bytes of the Z85 text `s`.
fn z85(s: &str) -> Result<Vec<u8>, DataError> {
    if !s.len().is_multiple_of(5) {
        return Err(DataError::Z85Length(s.len()));
    }
    let mut out = Vec::with_capacity(s.len() / 5 * 4);
    for chunk in s.as_bytes().chunks(5) {
        let mut n: u64 = 0;
        for &c in chunk {
            let digit = Z85
                .iter()
                .position(|&z| z == c)
                .ok_or(DataError::Z85Char(c as char))?;
            n = n * 85 + digit as u64;
        }
        let n = u32::try_from(n).map_err(|_| DataError::Z85Overflow)?;
        out.extend_from_slice(&n.to_be_bytes());
    }
    Ok(out)
}

/// Bytes read in order, every read bounds-checked.
struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DataError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(DataError::BitmapShort {
                len: self.bytes.len(),
                wanted: n,
                at: self.at,
            })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u16(&mut self) -> Result<u16, DataError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, DataError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, DataError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// Call `each(start, end)` for the values `start..end` of the serialized
/// `RoaringBitmapArray` `bytes`, in order (a value, a run, a value...).
/// Bytes after the bitmap are left alone, as Delta's own readers leave
/// them.
fn bitmap_array(bytes: &[u8], each: &mut impl FnMut(u64, u64)) -> Result<(), DataError> {
    let mut r = Bytes { bytes, at: 0 };
    match r.u32()? {
        MAGIC => {}
        NATIVE_MAGIC => return Err(DataError::BitmapNative),
        other => {
            return Err(DataError::BitmapMagic {
                found: other,
                wanted: MAGIC,
            });
        }
    }
    let count = r.u64()?;
    let mut last: Option<u32> = None;
    for _ in 0..count {
        let key = r.u32()?;
        if last.is_some_and(|l| key <= l) {
            return Err(DataError::BitmapKeyOrder { key, last });
        }
        last = Some(key);
        roaring32(&mut r, u64::from(key) << 32, each)?;
    }
    Ok(())
}

/// The cookie of a 32-bit Roaring bitmap with run containers (in its low
/// 16 bits; the high 16 hold the container count less one).
const COOKIE_RUNS: u32 = 12347;
/// The cookie of one without.
const COOKIE_NO_RUNS: u32 = 12346;
/// Containers of an array at most; more values are a bitmap.
const ARRAY_MAX: usize = 4096;

/// Read one 32-bit Roaring bitmap in the portable format, its values
/// offset by `high`.
fn roaring32(
    r: &mut Bytes<'_>,
    high: u64,
    each: &mut impl FnMut(u64, u64),
) -> Result<(), DataError> {
    let cookie = r.u32()?;
    let (n, runs) = if cookie & 0xFFFF == COOKIE_RUNS {
        let n = (cookie >> 16) as usize + 1;
        (n, Some(r.take(n.div_ceil(8))?))
    } else if cookie == COOKIE_NO_RUNS {
        (r.u32()? as usize, None)
    } else {
        return Err(DataError::RoaringCookie(cookie));
    };
    if n > 1 << 16 {
        return Err(DataError::RoaringContainers(n));
    }
    let header = r.take(4 * n)?;
    // The offsets of the containers, written without run containers or
    // with four or more: skipped, the containers read in order (as the
    // Java reader Delta uses reads them).
    if runs.is_none() || n >= 4 {
        r.take(4 * n)?;
    }
    let mut last: Option<u16> = None;
    for i in 0..n {
        let key = u16::from_le_bytes([header[4 * i], header[4 * i + 1]]);
        let cardinality =
            usize::from(u16::from_le_bytes([header[4 * i + 2], header[4 * i + 3]])) + 1;
        if last.is_some_and(|l| key <= l) {
            return Err(DataError::RoaringOrder { key, last });
        }
        last = Some(key);
        let base = high | (u64::from(key) << 16);
        if runs.is_some_and(|flags| flags[i / 8] & (1 << (i % 8)) != 0) {
            for _ in 0..r.u16()? {
                let start = u64::from(r.u16()?);
                let length = u64::from(r.u16()?) + 1;
                if start + length > 1 << 16 {
                    return Err(DataError::RoaringRun { length, start });
                }
                each(base + start, base + start + length);
            }
        } else if cardinality <= ARRAY_MAX {
            for _ in 0..cardinality {
                let v = base + u64::from(r.u16()?);
                each(v, v + 1);
            }
        } else {
            for (w, word) in r.take(8192)?.chunks_exact(8).enumerate() {
                let mut bits = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                while bits != 0 {
                    let v = base + (w as u64) * 64 + u64::from(bits.trailing_zeros());
                    each(v, v + 1);
                    bits &= bits - 1;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(bytes: &[u8]) -> Result<Vec<u64>, DataError> {
        let mut out = Vec::new();
        bitmap_array(bytes, &mut |s, e| out.extend(s..e))?;
        Ok(out)
    }

    #[test]
    fn z85_and_uuids_decode_as_the_protocol_says() {
        // ZeroMQ RFC 32's own example.
        assert_eq!(
            z85("HelloWorld").unwrap(),
            [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        );
        assert!(z85("Hello").is_ok() && z85("Hell").is_err() && z85("Hell~").is_err());
        // The protocol's example descriptor with a random prefix.
        let dv = Descriptor {
            storage: Storage::Uuid,
            path_or_inline: "ab^-aqEH.-t@S}K{vb[*k^".into(),
            offset: Some(4),
            size: 40,
            cardinality: 6,
        };
        assert_eq!(
            dv.file(Path::new("t")).unwrap(),
            Path::new("ab").join("deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin")
        );
        assert_eq!(dv.unique_id(), "uab^-aqEH.-t@S}K{vb[*k^@4");
        // A prefix that would leave the table is refused.
        let up = Descriptor {
            path_or_inline: "../^-aqEH.-t@S}K{vb[*k^".into(),
            ..dv.clone()
        };
        assert!(
            up.file(Path::new("t"))
                .unwrap_err()
                .to_string()
                .contains("prefix")
        );
    }

    #[test]
    fn an_absolute_path_is_read_only_inside_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("t");
        std::fs::create_dir(&table).unwrap();
        let at = |p: String| Descriptor {
            storage: Storage::Absolute,
            path_or_inline: p,
            offset: Some(1),
            size: 1,
            cardinality: 1,
        };
        let inside = table.join("dv.bin");
        let uri = |p: &Path| format!("file://{}", p.display()).replace('\\', "/");
        assert_eq!(
            at(inside.display().to_string()).file(&table).unwrap(),
            Path::new("dv.bin")
        );
        if cfg!(unix) {
            assert_eq!(at(uri(&inside)).file(&table).unwrap(), Path::new("dv.bin"));
        }
        for outside in [
            uri(&dir.path().join("dv.bin")),
            format!("{}/../dv.bin", table.display()),
            "s3://bucket/t/dv.bin".to_string(),
            "dv.bin".to_string(),
        ] {
            let e = at(outside.clone()).file(&table).unwrap_err().to_string();
            assert!(e.contains("outside the table"), "{outside}: {e}");
        }
    }

    #[cfg(feature = "parquet")]
    #[test]
    fn a_stored_vector_is_checked_and_read_through_the_guarded_reader() {
        // A `RoaringBitmapArray` of the values 1 and 5 (pyroaring's
        // `BitMap64([1, 5]).serialize()` after the magic number).
        const ONE_AND_FIVE: [u8; 36] = [
            0xd1, 0xd3, 0x39, 0x64, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0x30, 0, 0, 0x01,
            0, 0, 0, 0, 0, 0x01, 0, 0x10, 0, 0, 0, 0x01, 0, 0x05, 0,
        ];
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path();
        let uuid = "vBn[lx{q8@P<9BNH/isA";
        let dv = Descriptor {
            storage: Storage::Uuid,
            path_or_inline: uuid.into(),
            offset: Some(9),
            size: ONE_AND_FIVE.len() as u64,
            cardinality: 2,
        };
        let name = dv.file(table).unwrap();
        // A file of two vectors: another one first, then this one.
        let frame = |bytes: &[u8], crc: u32| {
            let mut f = (bytes.len() as u32).to_be_bytes().to_vec();
            f.extend(bytes);
            f.extend(crc.to_be_bytes());
            f
        };
        let write = |version: u8, crc: u32| {
            let mut file = vec![version];
            file.extend(frame(&[], 0));
            file.extend(frame(&ONE_AND_FIVE, crc));
            std::fs::write(table.join(&name), file).unwrap();
        };
        let good = crc32fast::hash(&ONE_AND_FIVE);

        let missing = dv.bitmap(table).unwrap_err().to_string();
        assert!(missing.contains(&name.display().to_string()), "{missing}");
        write(1, good);
        assert_eq!(dv.bitmap(table).unwrap(), ONE_AND_FIVE);
        let marks = mark(&ONE_AND_FIVE, 3).unwrap();
        assert_eq!(
            (marks.deleted, marks.dropped, marks.beyond),
            (vec![false, true, false], 1, 1)
        );

        write(1, good ^ 1);
        let e = dv.bitmap(table).unwrap_err().to_string();
        assert!(
            e.contains("checksum") && e.contains(&name.display().to_string()),
            "{e}"
        );
        write(2, good);
        assert!(
            dv.bitmap(table)
                .unwrap_err()
                .to_string()
                .contains("format version is 2")
        );
        write(1, good);
        let long = Descriptor {
            size: 37,
            ..dv.clone()
        };
        assert!(
            long.bitmap(table)
                .unwrap_err()
                .to_string()
                .contains("too short")
        );
        let short = Descriptor {
            size: 35,
            ..dv.clone()
        };
        assert!(
            short
                .bitmap(table)
                .unwrap_err()
                .to_string()
                .contains("where the log says 35")
        );

        // Inline: the same bytes in Z85, and four more that its size
        // leaves out.
        let mut padded = ONE_AND_FIVE.to_vec();
        padded.extend([0; 4]);
        let text: String = padded
            .chunks(4)
            .flat_map(|c| {
                let n = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
                (0..5)
                    .rev()
                    .map(move |k| Z85[(n / 85u32.pow(k) % 85) as usize] as char)
            })
            .collect();
        let inline = Descriptor {
            storage: Storage::Inline,
            path_or_inline: text,
            offset: None,
            size: ONE_AND_FIVE.len() as u64,
            cardinality: 2,
        };
        assert_eq!(inline.bitmap(table).unwrap(), ONE_AND_FIVE);

        #[cfg(unix)]
        {
            std::fs::remove_file(table.join(&name)).unwrap();
            let fifo = std::ffi::CString::new(table.join(&name).to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
            let e = dv.bitmap(table).unwrap_err().to_string();
            assert!(
                e.contains(&name.display().to_string()) && e.contains("not a regular file"),
                "{e}"
            );
        }
    }

    // Two `RoaringBitmapArray`s pyroaring 1.2 (CRoaring) serialized:
    //
    //   from pyroaring import BitMap64
    //   evens = list(range(131072, 131072 + 10000, 2))
    //   runs = BitMap64([3, 9, 70000] + evens + list(range(200000, 200100))
    //                   + [(1 << 32) + v for v in range(7, 1007)])
    //   no_runs = BitMap64([3, 9, 70000] + evens + [200000, 200002]
    //                      + [(1 << 32) + 7, (1 << 32) + 9])
    //   for b in (runs, no_runs):
    //       data = (1681511377).to_bytes(4, "little") + b.serialize()
    //
    // Each holds one bitmap container (the 5,000 even values from 131072:
    // more than an array holds), 8,192 bytes of 0x55 then zeros, kept out
    // of the literals below: the bytes before it are `*_HEAD`, after it
    // `*_TAIL`. `runs` has the run-container cookie: four containers
    // (arrays, the bitmap, a run of 100) in its first 32-bit bitmap, with
    // offsets, and one (a run of 1,000) without, in its second; `no_runs`
    // the cookie without run containers.
    const RUNS_HEAD: [u8; 59] = [
        0xd1, 0xd3, 0x39, 0x64, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x3b, 0x30, 0x03, 0x00, 0x08, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x87, 0x13, 0x03, 0x00, 0x63, 0x00, 0x25, 0x00, 0x00, 0x00, 0x29, 0x00, 0x00, 0x00,
        0x2b, 0x00, 0x00, 0x00, 0x2b, 0x20, 0x00, 0x00, 0x03, 0x00, 0x09, 0x00, 0x70, 0x11,
    ];
    const RUNS_TAIL: [u8; 25] = [
        0x01, 0x00, 0x40, 0x0d, 0x63, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3b, 0x30, 0x00, 0x00, 0x01,
        0x00, 0x00, 0xe7, 0x03, 0x01, 0x00, 0x07, 0x00, 0xe7, 0x03,
    ];
    const NO_RUNS_HEAD: [u8; 62] = [
        0xd1, 0xd3, 0x39, 0x64, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x3a, 0x30, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
        0x00, 0x00, 0x02, 0x00, 0x87, 0x13, 0x03, 0x00, 0x01, 0x00, 0x28, 0x00, 0x00, 0x00, 0x2c,
        0x00, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x2e, 0x20, 0x00, 0x00, 0x03, 0x00, 0x09, 0x00,
        0x70, 0x11,
    ];
    const NO_RUNS_TAIL: [u8; 28] = [
        0x40, 0x0d, 0x42, 0x0d, 0x01, 0x00, 0x00, 0x00, 0x3a, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x07, 0x00, 0x09, 0x00,
    ];

    /// `head`, the elided bitmap container, then `tail`.
    fn fixture(head: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut bytes = head.to_vec();
        bytes.extend([0x55; 1250]);
        bytes.extend([0; 8192 - 1250]);
        bytes.extend(tail);
        bytes
    }

    #[test]
    fn the_roaring_decoder_reads_what_croaring_writes() {
        let evens: Vec<u64> = (131_072..131_072 + 10_000).step_by(2).collect();
        let mut want: Vec<u64> = [3, 9, 70_000].into();
        want.extend(&evens);
        want.extend(200_000..200_100);
        want.extend((7..1007).map(|v| (1 << 32) + v));
        assert_eq!(values(&fixture(&RUNS_HEAD, &RUNS_TAIL)).unwrap(), want);

        let mut want: Vec<u64> = [3, 9, 70_000].into();
        want.extend(&evens);
        want.extend([200_000, 200_002, (1 << 32) + 7, (1 << 32) + 9]);
        assert_eq!(
            values(&fixture(&NO_RUNS_HEAD, &NO_RUNS_TAIL)).unwrap(),
            want
        );

        // Marking rows: those of the file dropped, the rest counted past
        // its end.
        let marks = mark(&fixture(&RUNS_HEAD, &RUNS_TAIL), 131_076).unwrap();
        assert_eq!(marks.dropped, 5);
        assert_eq!(
            (0..131_076)
                .filter(|&r| marks.deleted[r])
                .collect::<Vec<_>>(),
            [3, 9, 70_000, 131_072, 131_074]
        );
        assert_eq!(marks.beyond, 6_103 - 5);

        // Cut short anywhere, or with another magic number, it is refused.
        let whole = fixture(&RUNS_HEAD, &RUNS_TAIL);
        for cut in [3, 10, 20, 40, 59, 5000, whole.len() - 1] {
            assert!(values(&whole[..cut]).is_err(), "cut at {cut}");
        }
        let mut native = whole.clone();
        native[0] = 0xd0;
        assert!(
            values(&native)
                .unwrap_err()
                .to_string()
                .contains("native format")
        );
        // Bytes past the bitmap are left alone.
        let mut padded = whole;
        padded.extend([0; 3]);
        assert_eq!(values(&padded).unwrap().len(), 6_103);
    }
}
