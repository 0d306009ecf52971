//! A table's rows as JSON: an array of objects keyed by the columns' keys, serialized from the
//! rows as they are written rather than built as values first.

use super::numbers::whole_or_float;
use super::{Cell, Table};
use serde_json::Value as Json;

/// The rows of a table, each a JSON object keyed by its columns' keys, made as they are written.
pub struct RowsJson<'a>(pub &'a Table);

impl serde::Serialize for RowsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let table = self.0;
        let mut rows = serializer.serialize_seq(Some(table.rows.len()))?;
        let mut cells = Vec::with_capacity(table.columns.len());
        for index in 0..table.rows.len() {
            table.rows.row_into(index, &mut cells);
            rows.serialize_element(&RowJson { table, cells: &cells })?;
        }
        rows.end()
    }
}

/// One row as a JSON object keyed by its columns' keys.
struct RowJson<'a> {
    table: &'a Table,
    cells: &'a [Cell],
}

impl serde::Serialize for RowJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.cells.len()))?;
        for (column, cell) in self.table.columns.iter().zip(self.cells) {
            map.serialize_entry(column.key.as_ref(), &self.table.cell_json(cell))?;
        }
        map.end()
    }
}

impl Table {
    /// A cell as JSON.
    fn cell_json(&self, cell: &Cell) -> Json {
        match cell {
            Cell::Text(t) => Json::String(self.text_of(*t).to_string()),
            Cell::Number(v, _) => whole_or_float(*v),
            Cell::Flag(flag) => Json::Bool(*flag),
            Cell::Empty => Json::Null,
        }
    }
}
