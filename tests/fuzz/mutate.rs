//! The fuzzer's moves: a small deterministic generator, byte-level mutations of protobuf and text
//! (bit flips, extreme bytes, cuts, insertions, and protobuf fields appended with extreme values —
//! protobuf keeps the last value of a field, so an appended field overrides the seed's), and
//! structural mutations of JSON documents (a number, string, list or object swapped for an extreme
//! one, keys dropped, lists cut or grown).

use serde_json::{json, Value};

/// SplitMix64: enough for choosing mutations, reproducible from the seed a run prints.
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0); the slight bias of a modulo does not matter here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Numbers at the edges: zero, one, the ends of 32 and 64 bits, signs flipped by two's complement.
pub const EXTREMES: [u64; 10] = [
    0,
    1,
    2,
    0x7f,
    0x7fff_ffff,
    0xffff_ffff,
    0x1_0000_0000,
    i64::MAX as u64,
    1 << 63,
    u64::MAX,
];

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// One to four byte-level mutations of a protobuf message.
pub fn protobuf(gen: &mut Gen, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..=gen.below(4) {
        match gen.below(8) {
            0 | 1 => append_field(gen, &mut bytes),
            _ => raw(gen, &mut bytes),
        }
    }
    bytes
}

/// A field appended: a field number from 1 to 16, a wire type (mostly varint or length-delimited,
/// sometimes another), and an extreme value, a random string, a long one, or a length that lies.
fn append_field(gen: &mut Gen, bytes: &mut Vec<u8>) {
    let field = 1 + gen.below(16) as u64;
    let wire = match gen.below(8) {
        0..=3 => 0,
        4..=6 => 2,
        _ => gen.below(8) as u64,
    };
    varint(field << 3 | wire, bytes);
    match wire {
        0 => varint(*gen.pick(&EXTREMES), bytes),
        2 => match gen.below(6) {
            0 => varint(0, bytes),
            1 => {
                // A length claiming more than follows.
                varint(*gen.pick(&EXTREMES), bytes);
            }
            2 => {
                let long = 1 + gen.below(70_000);
                varint(long as u64, bytes);
                bytes.extend(std::iter::repeat_n(b'a', long));
            }
            _ => {
                let n = gen.below(40);
                varint(n as u64, bytes);
                let text = gen.bytes(n);
                bytes.extend(text);
            }
        },
        1 => bytes.extend(gen.bytes(8)),
        5 => bytes.extend(gen.bytes(4)),
        _ => {
            let n = gen.below(6);
            bytes.extend(gen.bytes(n));
        }
    }
}

/// A byte-level change: flip a bit, set an extreme byte, cut, delete or insert a run, or repeat
/// the whole (protobuf merges the copies).
pub fn raw(gen: &mut Gen, bytes: &mut Vec<u8>) {
    if bytes.is_empty() {
        let n = 1 + gen.below(16);
        bytes.extend(gen.bytes(n));
        return;
    }
    let at = gen.below(bytes.len());
    match gen.below(7) {
        0 => bytes[at] ^= 1 << gen.below(8),
        1 => bytes[at] = *gen.pick(&[0x00, 0x01, 0x7f, 0x80, 0xff, b'"', b'\\', b'-']),
        2 => bytes.truncate(at),
        3 => {
            let end = (at + 1 + gen.below(16)).min(bytes.len());
            bytes.drain(at..end);
        }
        4 => {
            let n = 1 + gen.below(16);
            let insert = gen.bytes(n);
            bytes.splice(at..at, insert);
        }
        5 => {
            let end = (at + 1 + gen.below(32)).min(bytes.len());
            let run = bytes[at..end].to_vec();
            bytes.splice(at..at, run);
        }
        _ => {
            if bytes.len() < 1 << 16 {
                let copy = bytes.clone();
                bytes.extend(copy);
            }
        }
    }
}

/// A JSON document mutated: mostly structurally (one to three nodes replaced or reshaped), sometimes
/// as bytes (which mostly tests the parser's refusals).
pub fn json_text(gen: &mut Gen, doc: &Value) -> Vec<u8> {
    if gen.chance(4) {
        let mut bytes = serde_json::to_vec(doc).unwrap_or_default();
        for _ in 0..=gen.below(3) {
            raw(gen, &mut bytes);
        }
        return bytes;
    }
    let mut doc = doc.clone();
    for _ in 0..=gen.below(3) {
        let count = count_nodes(&doc);
        let target = gen.below(count);
        let donor = nth(&doc, gen.below(count)).cloned().unwrap_or(Value::Null);
        if let Some(node) = nth_mut(&mut doc, target) {
            reshape(gen, node, donor);
        }
    }
    serde_json::to_vec(&doc).unwrap_or_default()
}

fn reshape(gen: &mut Gen, node: &mut Value, donor: Value) {
    match gen.below(12) {
        0 => *node = json!(*gen.pick(&EXTREMES)),
        1 => *node = json!(-(gen.below(3) as i64) - 1),
        2 => *node = json!(*gen.pick(&[1e308, -1e308, 0.5, -0.0, 1.8446744073709552e19])),
        3 => *node = json!(""),
        4 => *node = json!("x".repeat(1 + gen.below(100_000))),
        5 => {
            *node = gen
                .pick(&[Value::Null, json!(true), json!([]), json!({})])
                .clone()
        }
        6 => *node = donor,
        7 => {
            // Nested lists, deeper than any document needs.
            let mut deep = json!(0);
            for _ in 0..gen.below(300) {
                deep = json!([deep]);
            }
            *node = deep;
        }
        8 => match node {
            Value::Object(map) if !map.is_empty() => {
                let key = map.keys().nth(gen.below(map.len())).cloned();
                if let Some(key) = key {
                    map.remove(&key);
                }
            }
            Value::Array(list) if !list.is_empty() => {
                list.truncate(gen.below(list.len()));
            }
            _ => *node = Value::Null,
        },
        9 => match node {
            Value::Array(list) if !list.is_empty() && list.len() < 1 << 12 => {
                let item = list[gen.below(list.len())].clone();
                let most = if gen.chance(8) { 5_000 } else { 4 };
                let times = 1 + gen.below(most);
                list.extend(std::iter::repeat_n(item, times));
            }
            Value::Object(map) => {
                map.insert(format!("unknown_{}", gen.below(10)), json!(1));
            }
            _ => *node = json!(gen.next()),
        },
        10 => {
            if let Value::String(s) = node {
                let mut bytes = s.clone().into_bytes();
                raw(gen, &mut bytes);
                *node = json!(String::from_utf8_lossy(&bytes));
            } else if let Some(n) = node.as_u64() {
                *node = json!(n.wrapping_add(gen.next() % 3).wrapping_sub(1));
            }
        }
        _ => {
            if let Some(n) = node.as_u64() {
                *node = json!(n.saturating_mul(*gen.pick(&[10, 1_000, 1 << 32])));
            } else {
                *node = json!(gen.next() >> gen.below(64));
            }
        }
    }
}

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(list) => list.iter().map(count_nodes).sum(),
        Value::Object(map) => map.values().map(count_nodes).sum(),
        _ => 0,
    }
}

fn nth(v: &Value, mut n: usize) -> Option<&Value> {
    fn walk<'a>(v: &'a Value, n: &mut usize) -> Option<&'a Value> {
        if *n == 0 {
            return Some(v);
        }
        *n -= 1;
        match v {
            Value::Array(list) => list.iter().find_map(|c| walk(c, n)),
            Value::Object(map) => map.values().find_map(|c| walk(c, n)),
            _ => None,
        }
    }
    walk(v, &mut n)
}

fn nth_mut(v: &mut Value, mut n: usize) -> Option<&mut Value> {
    fn walk<'a>(v: &'a mut Value, n: &mut usize) -> Option<&'a mut Value> {
        if *n == 0 {
            return Some(v);
        }
        *n -= 1;
        match v {
            Value::Array(list) => list.iter_mut().find_map(|c| walk(c, n)),
            Value::Object(map) => map.values_mut().find_map(|c| walk(c, n)),
            _ => None,
        }
    }
    walk(v, &mut n)
}
