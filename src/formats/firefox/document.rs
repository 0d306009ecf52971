//! The processed profile as it is read: its parts as serde takes them from the JSON, which the
//! reader reads and the upgrade of older versions changes first.

use super::Category;
use serde::Deserialize;

#[derive(Deserialize)]
pub(super) struct Document {
    pub(super) meta: Meta,
    pub(super) threads: Vec<Thread>,
    /// From version 56 the strings, from 58 the sources, from 60 the tables of all threads.
    #[serde(default)]
    pub(super) shared: Tables,
    /// The libraries of native frames, which samply's symbol file is matched to.
    #[serde(default)]
    pub(super) libs: Vec<Lib>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Lib {
    pub(super) debug_name: Option<String>,
    /// The build id (ELF) or UUID, in hex.
    pub(super) code_id: Option<String>,
    /// The debug id in Breakpad's form: hex digits, upper case, no dashes, then the age.
    pub(super) breakpad_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Meta {
    pub(super) interval: Option<f64>,
    /// When the profile starts (ms): sample times count from it.
    pub(super) start_time: Option<f64>,
    pub(super) product: Option<String>,
    #[serde(default)]
    pub(super) categories: Vec<Category>,
}

#[derive(Deserialize)]
pub(super) struct Thread {
    pub(super) name: Option<String>,
    /// None before version 1 in a thread whose name says its process (`Content`).
    #[serde(rename = "processType")]
    pub(super) process_type: Option<serde::de::IgnoredAny>,
    pub(super) tid: Option<serde_json::Value>,
    /// When it started (ms from `meta.startTime`), where the profiler says.
    #[serde(rename = "registerTime")]
    pub(super) register_time: Option<f64>,
    /// When it ended (ms from `meta.startTime`), where the profiler says.
    #[serde(rename = "unregisterTime")]
    pub(super) unregister_time: Option<f64>,
    #[serde(rename = "processShutdownTime")]
    pub(super) process_shutdown_time: Option<f64>,
    pub(super) samples: Samples,
    pub(super) markers: Option<Length>,
    #[serde(rename = "jsAllocations")]
    pub(super) js_allocations: Option<Length>,
    #[serde(rename = "nativeAllocations")]
    pub(super) native_allocations: Option<Length>,
    /// Its own tables up to version 59 (its strings up to 55).
    #[serde(flatten)]
    pub(super) tables: Tables,
}

/// The tables a thread's samples point into: the thread's own, or `profile.shared`'s.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct Tables {
    pub(super) stack_table: Option<StackTable>,
    pub(super) frame_table: Option<FrameTable>,
    pub(super) func_table: Option<FuncTable>,
    pub(super) resource_table: Option<ResourceTable>,
    pub(super) string_array: Option<Vec<String>>,
    pub(super) sources: Option<Sources>,
}

/// A table of which only its length is read.
#[derive(Deserialize)]
pub(super) struct Length {
    pub(super) length: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Samples {
    /// CPU time of the thread between samples: any number makes the thread one whose CPU time is
    /// not read.
    #[serde(rename = "threadCPUDelta")]
    pub(super) thread_cpu_delta: Option<Vec<Option<f64>>>,
    pub(super) length: usize,
    pub(super) stack: Vec<Option<u64>>,
    pub(super) weight: Option<Vec<Option<f64>>>,
    pub(super) weight_type: Option<String>,
    /// Each sample's time (ms from `meta.startTime`), or the ms from the sample before
    /// (`timeDeltas`, which later profilers write instead).
    pub(super) time: Option<Vec<Option<f64>>>,
    pub(super) time_deltas: Option<Vec<Option<f64>>>,
    /// The weights before version 29.
    pub(super) duration: Option<Vec<Option<f64>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StackTable {
    pub(super) length: usize,
    /// A stack's caller, up to version 65.
    pub(super) prefix: Option<Vec<Option<u64>>>,
    /// How many stacks before it its caller is (0: none), from version 66.
    pub(super) prefix_offset: Option<Vec<u64>>,
    pub(super) frame: Vec<u64>,
}

#[derive(Deserialize)]
pub(super) struct FrameTable {
    pub(super) length: usize,
    pub(super) func: Vec<u64>,
    #[serde(default)]
    pub(super) line: Vec<Option<u32>>,
    #[serde(default)]
    pub(super) column: Vec<Option<u32>>,
    #[serde(default)]
    pub(super) category: Vec<Option<u64>>,
    /// A native frame's address in its library (-1: none).
    #[serde(default)]
    pub(super) address: Vec<Option<i64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FuncTable {
    pub(super) length: usize,
    pub(super) name: Vec<u64>,
    /// Whether it is JS: its name, file and line were one string before version 4.
    #[serde(default, rename = "isJS")]
    pub(super) is_js: Vec<bool>,
    /// Its file up to version 57 (a string).
    #[serde(default)]
    pub(super) file_name: Vec<Option<u64>>,
    /// Its file from version 58 (a source).
    #[serde(default)]
    pub(super) source: Vec<Option<u64>>,
    #[serde(default)]
    pub(super) line_number: Vec<Option<u32>>,
    #[serde(default)]
    pub(super) column_number: Vec<Option<u32>>,
    #[serde(default)]
    pub(super) resource: Vec<Option<i64>>,
}

#[derive(Deserialize)]
pub(super) struct ResourceTable {
    /// A string, or before version 41 -1 or `null` for none.
    pub(super) name: Vec<Option<i64>>,
    /// A library's index into `libs`.
    #[serde(default)]
    pub(super) lib: Vec<Option<i64>>,
}

#[derive(Deserialize)]
pub(super) struct Sources {
    pub(super) filename: Vec<Option<u64>>,
}
