//! Column-typed tables built row by row, written as Parquet files (crash-safe: a temporary
//! file in the same folder, fsynced, then renamed into place).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::ArchiveError;

/// A column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Str,
    I64,
    F64,
    Bool,
    /// Milliseconds since the epoch, UTC.
    Ts,
}

/// One cell; `None` is SQL NULL.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    S(Option<String>),
    I(Option<i64>),
    F(Option<f64>),
    B(Option<bool>),
    T(Option<i64>),
}

pub type Columns = &'static [(&'static str, Ty)];

/// Rows of one table, checked against its columns when written.
#[derive(Debug, Default, Clone)]
pub struct Rows(pub Vec<Vec<Cell>>);

fn schema(cols: Columns) -> Schema {
    Schema::new(
        cols.iter()
            .map(|(name, ty)| {
                let dt = match ty {
                    Ty::Str => DataType::Utf8,
                    Ty::I64 => DataType::Int64,
                    Ty::F64 => DataType::Float64,
                    Ty::Bool => DataType::Boolean,
                    Ty::Ts => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                };
                Field::new(*name, dt, true)
            })
            .collect::<Vec<_>>(),
    )
}

fn batch(cols: Columns, rows: &[Vec<Cell>]) -> Result<RecordBatch, ArchiveError> {
    let bad = |j: usize| ArchiveError::Invalid(format!("column {} has a cell of the wrong type", cols[j].0));
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(cols.len());
    for (j, (_, ty)) in cols.iter().enumerate() {
        let cells = rows.iter().map(|r| r.get(j).ok_or_else(|| bad(j)));
        let a: ArrayRef = match ty {
            Ty::Str => Arc::new(cells.map(|c| match c? {
                Cell::S(v) => Ok(v.as_deref()),
                _ => Err(bad(j)),
            }).collect::<Result<StringArray, _>>()?),
            Ty::I64 => Arc::new(cells.map(|c| match c? {
                Cell::I(v) => Ok(*v),
                _ => Err(bad(j)),
            }).collect::<Result<Int64Array, _>>()?),
            Ty::F64 => Arc::new(cells.map(|c| match c? {
                Cell::F(v) => Ok(*v),
                _ => Err(bad(j)),
            }).collect::<Result<Float64Array, _>>()?),
            Ty::Bool => Arc::new(cells.map(|c| match c? {
                Cell::B(v) => Ok(*v),
                _ => Err(bad(j)),
            }).collect::<Result<BooleanArray, _>>()?),
            Ty::Ts => Arc::new(
                cells
                    .map(|c| match c? {
                        Cell::T(v) => Ok(*v),
                        _ => Err(bad(j)),
                    })
                    .collect::<Result<TimestampMillisecondArray, _>>()?
                    .with_timezone("UTC"),
            ),
        };
        arrays.push(a);
    }
    Ok(RecordBatch::try_new(Arc::new(schema(cols)), arrays)?)
}

/// Writes `rows` to a new Parquet file at `path` (never replacing an existing one).
pub fn write_parquet(path: &Path, cols: Columns, rows: &[Vec<Cell>]) -> Result<(), ArchiveError> {
    let dir = path.parent().ok_or_else(|| ArchiveError::Invalid(format!("no folder for {}", path.display())))?;
    std::fs::create_dir_all(dir).map_err(|e| ArchiveError::io(dir, e))?;
    let b = batch(cols, rows)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let file = File::create(&tmp).map_err(|e| ArchiveError::io(&tmp, e))?;
    let mut w = ArrowWriter::try_new(file, b.schema(), Some(props))?;
    w.write(&b)?;
    let file = w.into_inner()?;
    file.sync_all().map_err(|e| ArchiveError::io(&tmp, e))?;
    drop(file);
    // A hard link never replaces an existing file; the temporary name goes after.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|e| ArchiveError::io(path, e))?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
