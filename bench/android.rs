//! The generator's Android shapes (`generate art-trace`, `generate simpleperf`): inputs of formats
//! proftool reads only, written by the generator's own writers, as ART and simpleperf lay them out.

use super::{CountingWriter, Rng, NOUNS, VERBS};
use std::io::Write;

/// An ART method trace (`art-trace`, the regular layout, version 3, `clock=dual`) of at least
/// `size` bytes: 5,000 methods of 500 classes, 8 threads each walking a call tree (a method calls
/// one of the methods `31i+1..31i+3` (modulo 5,000), up to 40 deep, then returns), both clocks advancing
/// 1 to 20 µs a record. Returns the records and the bytes written.
pub(super) fn art_trace(size: u64, out: &mut impl Write) -> (u64, u64) {
    const METHODS: u64 = 5000;
    const THREADS: u16 = 8;
    let mut rng = Rng(0xa47_7ace);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let mut text = String::from("*version\n3\ndata-file-overflow=false\nclock=dual\nvm=art\npid=1000\n*threads\n");
    for t in 0..THREADS {
        text.push_str(&format!("{}\tworker-{t}\n", 1000 + t));
    }
    text.push_str("*methods\n");
    for m in 0..METHODS {
        let (verb, noun) = (VERBS[(m % 10) as usize].to_lowercase(), NOUNS[(m / 10 % 10) as usize]);
        text.push_str(&format!(
            "{:#x}\tcom.example.app.{noun}{}\t{verb}{m}\t()V\t{noun}{}.java\n",
            m << 2,
            m % 500,
            m % 500
        ));
    }
    text.push_str("*end\n");
    w.write_all(text.as_bytes()).expect("writing the output");
    let mut header = Vec::from(&b"SLOW"[..]);
    header.extend(3u16.to_le_bytes());
    header.extend(32u16.to_le_bytes());
    header.extend(0u64.to_le_bytes());
    header.extend(14u16.to_le_bytes());
    header.resize(32, 0);
    w.write_all(&header).expect("writing the output");
    let mut stacks: Vec<Vec<u64>> = vec![Vec::new(); usize::from(THREADS)];
    let mut clocks = vec![(0u32, 0u32); usize::from(THREADS)];
    let mut records = 0u64;
    let mut record = [0u8; 14];
    while w.bytes < size {
        let t = rng.below(u64::from(THREADS)) as usize;
        let stack = &mut stacks[t];
        let (enter, method) = match stack.last() {
            None => (true, rng.below(METHODS / 100)),
            Some(&top) if stack.len() < 40 && rng.below(2) == 0 => (true, (top * 31 + 1 + rng.below(3)) % METHODS),
            Some(&top) => (false, top),
        };
        match enter {
            true => stack.push(method),
            false => drop(stack.pop()),
        }
        let (cpu, wall) = &mut clocks[t];
        *cpu += 1 + rng.below(10) as u32;
        *wall += 1 + rng.below(20) as u32 + *cpu % 3;
        record[..2].copy_from_slice(&(1000 + t as u16).to_le_bytes());
        record[2..6].copy_from_slice(&(((method as u32) << 2) | u32::from(!enter)).to_le_bytes());
        record[6..10].copy_from_slice(&cpu.to_le_bytes());
        record[10..14].copy_from_slice(&wall.to_le_bytes());
        w.write_all(&record).expect("writing the output");
        records += 1;
    }
    (records, w.bytes)
}

/// A protobuf varint.
fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A length-delimited protobuf field.
fn message_field(number: u64, body: &[u8], out: &mut Vec<u8>) {
    varint(number << 3 | 2, out);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// A simpleperf report_sample file (`simpleperf report-sample --protobuf`) of at least `size`
/// bytes: the meta info (`cpu-clock`), samples 4 to 40 frames deep in 8 threads over 20,000
/// symbols of 20 files (every 10th frame unsymbolized), each of 250 µs to 1 ms, then the lost
/// situation (none lost), the files and the threads, as simpleperf writes them. Returns the
/// samples and the bytes written.
pub(super) fn simpleperf(size: u64, out: &mut impl Write) -> (u64, u64) {
    const FILES: u64 = 20;
    const SYMBOLS: u64 = 1000;
    let mut rng = Rng(0x51_3e7f);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let put = |w: &mut CountingWriter<'_>, record: &[u8]| {
        w.write_all(&(record.len() as u32).to_le_bytes()).expect("writing the output");
        w.write_all(record).expect("writing the output");
    };
    w.write_all(b"SIMPLEPERF\x01\x00").expect("writing the output");
    let (mut record, mut body, mut entry) = (Vec::new(), Vec::new(), Vec::new());
    message_field(1, b"cpu-clock", &mut body);
    message_field(5, &body, &mut record);
    put(&mut w, &record);
    let mut samples = 0u64;
    while w.bytes < size {
        body.clear();
        varint(2 << 3, &mut body);
        varint(2000 + rng.below(8), &mut body);
        let mut frame = rng.below(FILES * SYMBOLS);
        for _ in 0..4 + rng.below(37) {
            entry.clear();
            varint(1 << 3, &mut entry);
            varint(0x1000 + frame * 16, &mut entry);
            varint(2 << 3, &mut entry);
            varint(frame % FILES, &mut entry);
            varint(3 << 3, &mut entry);
            varint(if frame.is_multiple_of(10) { u64::MAX } else { frame / FILES }, &mut entry);
            message_field(3, &entry, &mut body);
            frame = frame / 3 + rng.below(3);
        }
        varint(4 << 3, &mut body);
        varint(250_000 * (1 + rng.below(4)), &mut body);
        record.clear();
        message_field(1, &body, &mut record);
        put(&mut w, &record);
        samples += 1;
    }
    body.clear();
    varint(1 << 3, &mut body);
    varint(samples, &mut body);
    record.clear();
    message_field(2, &body, &mut record);
    put(&mut w, &record);
    for f in 0..FILES {
        body.clear();
        varint(1 << 3, &mut body);
        varint(f, &mut body);
        message_field(
            2,
            format!("/system/lib64/lib{}.so", NOUNS[(f % 10) as usize].to_lowercase()).as_bytes(),
            &mut body,
        );
        for s in 0..SYMBOLS {
            message_field(3, format!("{}{s}()", VERBS[(s % 10) as usize]).as_bytes(), &mut body);
        }
        record.clear();
        message_field(3, &body, &mut record);
        put(&mut w, &record);
    }
    for t in 0..8u64 {
        body.clear();
        for (number, value) in [(1, 2000 + t), (2, 2000)] {
            varint(number << 3, &mut body);
            varint(value, &mut body);
        }
        message_field(3, format!("worker-{t}").as_bytes(), &mut body);
        record.clear();
        message_field(4, &body, &mut record);
        put(&mut w, &record);
    }
    w.write_all(&0u32.to_le_bytes()).expect("writing the output");
    (samples, w.bytes)
}
