//! The generator's Perfetto trace (`generate perfetto`): traced_perf's shape, encoded by hand.

use super::{CountingWriter, Rng, NOUNS, VERBS};
use std::io::Write;

/// A protobuf field: `number`'s tag and a varint (wire 0).
fn pb_varint(out: &mut Vec<u8>, number: u64, value: u64) {
    pb_raw_varint(out, number << 3);
    pb_raw_varint(out, value);
}

/// A protobuf field: `number`'s tag and `bytes`, length-delimited (wire 2).
fn pb_bytes(out: &mut Vec<u8>, number: u64, bytes: &[u8]) {
    pb_raw_varint(out, number << 3 | 2);
    pb_raw_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn pb_raw_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A Perfetto trace of at least `size` bytes as traced_perf writes one: a process tree (pid 100,
/// 8 named threads), then one sequence of `PerfSample`s, each of one of 20,000 callstacks 4 to 40
/// frames deep of 5,000 functions in 3 mappings (every 10th frame of no name), the interned data a
/// sample needs written in its packet the first time its sequence uses it, and the sequence's
/// state cleared every 50,000 samples (its tables written again as they are used). Returns the
/// samples and the bytes written.
pub(crate) fn perfetto(size: u64, out: &mut impl Write) -> (u64, u64) {
    const FUNCTIONS: u64 = 5000;
    const STACKS: u64 = 20_000;
    let mut rng = Rng(0x9e37_79b9);
    let stacks: Vec<Vec<u64>> = (0..STACKS)
        .map(|_| {
            let mut frame = rng.below(FUNCTIONS);
            (0..4 + rng.below(37))
                .map(|_| {
                    let next = frame / 3 + rng.below(3);
                    std::mem::replace(&mut frame, next) + 1
                })
                .collect()
        })
        .collect();
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let put = |w: &mut CountingWriter<'_>, packet: &[u8]| {
        let mut field = Vec::with_capacity(packet.len() + 4);
        pb_bytes(&mut field, 1, packet);
        w.write_all(&field).expect("writing the output");
    };
    let mut tree = Vec::new();
    let mut process = Vec::new();
    pb_varint(&mut process, 1, 100);
    pb_bytes(&mut process, 3, b"/usr/bin/server");
    pb_bytes(&mut tree, 1, &process);
    for t in 0..8u64 {
        let mut thread = Vec::new();
        pb_varint(&mut thread, 1, 100 + t);
        pb_bytes(&mut thread, 2, format!("worker {t}").as_bytes());
        pb_varint(&mut thread, 3, 100);
        pb_bytes(&mut tree, 2, &thread);
    }
    // traced writes the producer's uid and the sequence in every packet.
    let mut packet = Vec::new();
    pb_bytes(&mut packet, 2, &tree);
    pb_varint(&mut packet, 3, 1000);
    pb_varint(&mut packet, 10, 2);
    put(&mut w, &packet);
    let (mut samples, mut names, mut frames, mut callstacks) = (0u64, Vec::new(), Vec::new(), Vec::new());
    while w.bytes < size {
        if samples % 50_000 == 0 {
            names = vec![false; FUNCTIONS as usize + 1];
            frames = vec![false; FUNCTIONS as usize + 1];
            callstacks = vec![false; STACKS as usize];
        }
        let s = rng.below(STACKS) as usize;
        let mut interned = Vec::new();
        if !callstacks[s] {
            let state = (&mut names[..], &mut frames[..]);
            intern_stack(&mut interned, s, &stacks[s], state, samples % 50_000 == 0);
            callstacks[s] = true;
        }
        let mut sample = Vec::new();
        pb_varint(&mut sample, 1, samples % 4);
        pb_varint(&mut sample, 2, 100);
        pb_varint(&mut sample, 3, 100 + rng.below(8));
        pb_varint(&mut sample, 4, s as u64 + 1);
        let mut packet = Vec::new();
        pb_varint(&mut packet, 8, 1_000_000 + samples * 1000);
        pb_varint(&mut packet, 10, 1);
        if !interned.is_empty() {
            pb_bytes(&mut packet, 12, &interned);
        }
        pb_varint(&mut packet, 13, if samples % 50_000 == 0 { 3 } else { 2 });
        pb_bytes(&mut packet, 66, &sample);
        put(&mut w, &packet);
        samples += 1;
    }
    (samples, w.bytes)
}

/// The interned data of callstack `s` (`frames_of`), written the first time its sequence uses it:
/// its frames and names not yet written (`state`), and the mappings where the state was cleared.
fn intern_stack(interned: &mut Vec<u8>, s: usize, frames_of: &[u64], state: (&mut [bool], &mut [bool]), cleared: bool) {
    let (names, frames) = state;
    if cleared {
        for (m, path) in ["usr/bin/server", "lib/libc.so.6", "lib/libssl.so.3"].iter().enumerate() {
            let mut string = Vec::new();
            pb_varint(&mut string, 1, m as u64 + 1);
            pb_bytes(&mut string, 2, path.as_bytes());
            pb_bytes(interned, 17, &string);
            let mut mapping = Vec::new();
            pb_varint(&mut mapping, 1, m as u64 + 1);
            pb_varint(&mut mapping, 7, m as u64 + 1);
            pb_bytes(interned, 19, &mapping);
        }
    }
    for &f in frames_of {
        if frames[f as usize] {
            continue;
        }
        let mut frame = Vec::new();
        pb_varint(&mut frame, 1, f);
        if f % 10 != 0 {
            pb_varint(&mut frame, 2, f);
            if !names[f as usize] {
                let mut string = Vec::new();
                pb_varint(&mut string, 1, f);
                let name = format!("{}_{}_{f}", VERBS[(f % 10) as usize], NOUNS[(f / 10 % 10) as usize]);
                pb_bytes(&mut string, 2, name.to_lowercase().as_bytes());
                pb_bytes(interned, 5, &string);
                names[f as usize] = true;
            }
        }
        pb_varint(&mut frame, 3, 1 + f % 3);
        pb_varint(&mut frame, 4, 0x1000 + f * 0x40);
        pb_bytes(interned, 6, &frame);
        frames[f as usize] = true;
    }
    let mut callstack = Vec::new();
    pb_varint(&mut callstack, 1, s as u64 + 1);
    frames_of.iter().for_each(|&f| pb_varint(&mut callstack, 2, f));
    pb_bytes(interned, 7, &callstack);
}
