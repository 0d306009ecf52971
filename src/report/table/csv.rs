//! A table as CSV: a header of the column keys, then the rows, numbers in full; a text cell that
//! a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or CR first) has a `'` put in
//! front of it, as OWASP's rule on CSV injection says, so that it opens as the text it is.

use super::{Cell, Table};
use std::fmt::Write;

impl Table {
    /// The table as CSV.
    pub fn csv(&self) -> String {
        let mut writer = ::csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(self.columns.iter().map(|c| c.key.as_ref()));
        let (mut cells, mut field) = (Vec::with_capacity(self.columns.len()), String::new());
        for index in 0..self.rows.len() {
            self.rows.row_into(index, &mut cells);
            for cell in &cells {
                field.clear();
                self.full_into(&mut field, cell);
                let _ = writer.write_field(&field);
            }
            let _ = writer.write_record(None::<&[u8]>);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// Appends a cell for a script to `buffer`: numbers in full.
    fn full_into(&self, buffer: &mut String, cell: &Cell) {
        match cell {
            Cell::Text(t) => {
                let text = self.text_of(*t);
                // A text a spreadsheet would run as a formula (OWASP's CSV injection rule): a
                // quote in front makes it text there; numbers are never text cells.
                if crate::formats::shared::runs_as_formula(text) {
                    buffer.push('\'');
                }
                buffer.push_str(text);
            }
            Cell::Number(v, _) => {
                let _ = write!(buffer, "{}", super::numbers::written(*v));
            }
            Cell::Flag(flag) => {
                let _ = write!(buffer, "{flag}");
            }
            Cell::Empty => {}
        }
    }
}
