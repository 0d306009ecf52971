//! samply's symbol file: the `.syms.json` that `samply record --unstable-presymbolicate` writes
//! beside the profile it saves (`p.json` → `p.syms.json`, `p.json.gz` → `p.json.syms.json`: the
//! last extension replaced), with which `samply load` names the functions of the addresses the
//! profile leaves unsymbolicated. It holds, per library, a table of symbols (an address relative
//! to the library, a size, an index into a string table); a library is matched to the profile's
//! `libs` by its code id (the ELF build id), else by its debug name and id.

use super::document::Lib;
use crate::diag::Diagnostics;
use serde::Deserialize;
use std::cell::Cell;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct SymbolFile {
    string_table: Vec<String>,
    data: Vec<LibSymbols>,
}

#[derive(Deserialize)]
struct LibSymbols {
    debug_name: String,
    debug_id: String,
    code_id: Option<String>,
    symbol_table: Vec<Symbol>,
}

#[derive(Deserialize, Clone, Copy)]
struct Symbol {
    rva: u64,
    size: Option<u64>,
    /// An index into the string table.
    symbol: usize,
}

/// The symbols of a profile's libraries, where a symbol file beside it has them, and how many
/// addresses were named and left as they are.
pub(super) struct Naming {
    /// The symbol file read, if any.
    file: Option<PathBuf>,
    strings: Vec<String>,
    /// Each library of the profile's `libs`: its symbols sorted by address (empty: none known).
    tables: Vec<Vec<Symbol>>,
    named: Cell<usize>,
    unnamed: Cell<usize>,
}

/// Where samply writes the symbol file of the profile at `profile`.
fn sidecar(profile: &Path) -> PathBuf {
    profile.with_extension("syms.json")
}

impl Naming {
    /// The symbols in the symbol file beside `profile` (none where there is no such file, or no
    /// path); a file that cannot be read as one is said and passed over, as samply passes it over.
    pub(super) fn beside(profile: Option<&Path>, libs: &[Lib], diag: &mut Diagnostics) -> Naming {
        let mut naming =
            Naming { file: None, strings: Vec::new(), tables: Vec::new(), named: Cell::new(0), unnamed: Cell::new(0) };
        let Some(path) = profile.map(sidecar).filter(|p| p.is_file()) else { return naming };
        let parsed = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| serde_json::from_slice::<SymbolFile>(&bytes).map_err(|e| e.to_string()));
        let file = match parsed {
            Ok(file) => file,
            Err(e) => {
                let shown = path.display().to_string();
                diag.warn("firefox-symbols", None, || {
                    format!("firefox: {shown} is not samply's symbol file ({e}): its addresses are left unnamed")
                });
                return naming;
            }
        };
        naming.tables = libs
            .iter()
            .map(|lib| {
                let found = file.data.iter().find(|symbols| symbols.are_of(lib));
                let mut table = found.map_or_else(Vec::new, |symbols| symbols.symbol_table.clone());
                table.sort_by_key(|s| s.rva);
                table
            })
            .collect();
        naming.strings = file.string_table;
        naming.file = Some(path);
        naming
    }

    /// The function at `address` of library `lib` (an index into `libs`), where the symbols name
    /// one; counted as named or not.
    pub(super) fn name(&self, lib: Option<usize>, address: Option<u64>) -> Option<&str> {
        let found = lib.zip(address).and_then(|(lib, address)| {
            let table = self.tables.get(lib)?;
            let at = table.partition_point(|s| s.rva <= address).checked_sub(1)?;
            let symbol = table[at];
            let within = symbol.size.is_none_or(|size| address < symbol.rva.saturating_add(size));
            within.then(|| self.strings.get(symbol.symbol).map(String::as_str)).flatten()
        });
        let counter = if found.is_some() { &self.named } else { &self.unnamed };
        counter.set(counter.get() + 1);
        found
    }

    /// Says how many addresses were named, from which file, and how to name those left.
    pub(super) fn say(&self, profile: Option<&Path>, diag: &mut Diagnostics) {
        let (named, unnamed) = (self.named.get(), self.unnamed.get());
        if let Some(file) = &self.file {
            let file = file.display().to_string();
            diag.warn("firefox-symbols", None, || match unnamed {
                0 => format!("firefox: {named} frames named by samply's symbols in {file}"),
                _ => format!(
                    "firefox: {named} frames named by samply's symbols in {file}; {unnamed} addresses it has no \
                     symbol for left as they are"
                ),
            });
        } else if unnamed > 0 {
            // The symbol file's name, without its folder (the profile's own is said before it).
            let name = profile.map(sidecar).and_then(|p| Some(p.file_name()?.to_string_lossy().into_owned()));
            let beside = name.unwrap_or_else(|| "its symbols (p.syms.json of p.json)".into());
            diag.warn("firefox-symbols", None, || {
                format!(
                    "firefox: {unnamed} frames are unsymbolicated addresses (named by their library and address); \
                     `samply record --unstable-presymbolicate` writes {beside} beside the profile, which names them"
                )
            });
        }
    }
}

impl LibSymbols {
    /// Whether these are the symbols of `lib`: the same code id, else the same debug name and id.
    fn are_of(&self, lib: &Lib) -> bool {
        if let (Some(ours), Some(theirs)) = (&self.code_id, &lib.code_id) {
            return ours.eq_ignore_ascii_case(theirs);
        }
        // A Breakpad id is the debug id's hex digits, upper case, then the age.
        let debug_id: String = self.debug_id.chars().filter(|c| *c != '-').collect();
        lib.debug_name.as_deref() == Some(self.debug_name.as_str())
            && lib
                .breakpad_id
                .as_deref()
                .is_some_and(|id| id.get(..debug_id.len()).is_some_and(|head| head.eq_ignore_ascii_case(&debug_id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lib(code_id: Option<&str>, debug_name: &str, breakpad_id: &str) -> Lib {
        Lib {
            debug_name: Some(debug_name.into()),
            code_id: code_id.map(str::to_string),
            breakpad_id: Some(breakpad_id.into()),
        }
    }

    fn symbols(code_id: Option<&str>) -> LibSymbols {
        LibSymbols {
            debug_name: "work".into(),
            debug_id: "d0b48caa-8843-2449-93a6-be24a9b8e749".into(),
            code_id: code_id.map(str::to_string),
            symbol_table: Vec::new(),
        }
    }

    /// A library is matched by its code id where both have one, else by its debug name and id.
    #[test]
    fn symbols_are_matched_to_a_library_by_code_id_else_debug_name_and_id() {
        let breakpad = "D0B48CAA8843244993A6BE24A9B8E7490";
        assert!(symbols(Some("AA8C")).are_of(&lib(Some("aa8c"), "other", "0")));
        assert!(!symbols(Some("aa8c")).are_of(&lib(Some("aa8d"), "work", breakpad)));
        assert!(symbols(None).are_of(&lib(None, "work", breakpad)));
        assert!(!symbols(None).are_of(&lib(None, "work", "D0B48CAA88432449")));
        assert!(!symbols(None).are_of(&lib(None, "libc.so.6", breakpad)));
    }

    /// An address is named by the symbol that holds it: at or after its start, before its end.
    #[test]
    fn an_address_is_named_by_the_symbol_that_holds_it() {
        let naming = Naming {
            file: Some("p.syms.json".into()),
            strings: vec!["start".into(), "mix".into(), "sized".into()],
            tables: vec![vec![
                Symbol { rva: 0x1000, size: Some(0x10), symbol: 0 },
                Symbol { rva: 0x1100, size: None, symbol: 1 },
            ]],
            named: Cell::new(0),
            unnamed: Cell::new(0),
        };
        assert_eq!(naming.name(Some(0), Some(0x1000)), Some("start"));
        assert_eq!(naming.name(Some(0), Some(0x100f)), Some("start"));
        assert_eq!(naming.name(Some(0), Some(0x1010)), None, "past its size");
        assert_eq!(naming.name(Some(0), Some(0xfff)), None, "before the first");
        assert_eq!(naming.name(Some(0), Some(0x9999)), Some("mix"), "a symbol of no size holds what follows it");
        assert_eq!(naming.name(Some(1), Some(0x1000)), None, "a library of no symbols");
        assert_eq!((naming.named.get(), naming.unnamed.get()), (3, 3));
    }
}
