//! Property tests through the library: `wrap` loses nothing (stored bytes == input, pass-through
//! == input, capped payloads are exactly head + marker + tail) and its envelope is always valid
//! JSON within its bound.

use std::io::Read;

use proptest::prelude::*;
use spill::store::{Ref, StoreConfig};
use spill::wrap::{Capture, WrapOptions, capture, envelope};

/// Random output: raw bytes, or text-like lines, or JSON-like text (so every analysis path runs).
fn output() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..20_000),
        prop::collection::vec("[ -~]{0,120}(\r?\n)", 0..400).prop_map(|l| l.concat().into_bytes()),
        prop::collection::vec(
            prop_oneof![
                Just(&b"{\"a\":"[..]),
                Just(&b"[1,2,"[..]),
                Just(&b"\"x\\u00e9\","[..]),
                Just(&b"]"[..]),
                Just(&b"}"[..]),
                Just(&b"error: boom\n"[..]),
                Just(&b"\xff\x00"[..]),
            ],
            0..3000
        )
        .prop_map(|parts| parts.concat()),
    ]
}

/// A reader that returns at most `step` bytes per read, like a pipe fed in small writes.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn wrap_loses_nothing_and_its_envelope_is_bounded_json(
        data in output(),
        threshold in prop_oneof![0u64..64, 0u64..30_000],
        preview in 0u64..6000,
        max_file in prop_oneof![Just(u64::MAX), 300u64..40_000],
        step in prop_oneof![Just(usize::MAX), 1usize..5000],
        label in "[ -~é]{0,300}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = StoreConfig::new(dir.path().join("store"), "default".into());
        config.max_file = max_file;
        let opts = WrapOptions {
            max_inline: threshold,
            preview,
            label: Some(label),
            ..WrapOptions::default()
        };
        let captured = capture(&mut Trickle { data: &data, step }, &opts, &config, &|| false).unwrap();
        match captured {
            Capture::Inline(bytes) => {
                prop_assert!(data.len() as u64 <= threshold);
                prop_assert_eq!(bytes, data);
            }
            Capture::Spilled(s) => {
                prop_assert!(data.len() as u64 > threshold);
                prop_assert_eq!(s.facts.size, data.len() as u64);
                let stored = s.stored.as_ref().expect("a fresh store takes the payload");
                let on_disk = std::fs::read(&stored.path).unwrap();
                prop_assert_eq!(on_disk.len() as u64, stored.stored_bytes);
                // The ref names the stored bytes.
                prop_assert_eq!(stored.reference, Ref::from_hash(&blake3::hash(&on_disk)));
                let cap = max_file.min(config.quota - 256).max(1);
                if data.len() as u64 <= cap {
                    prop_assert!(stored.complete);
                    prop_assert!(on_disk == data, "stored bytes differ from the input");
                } else {
                    // Head, a one-line marker, tail; the dropped count makes up the difference.
                    let t = (cap / 4).min(1 << 20) as usize;
                    let head = cap as usize - t;
                    prop_assert!(!stored.complete);
                    prop_assert_eq!(&on_disk[..head], &data[..head]);
                    prop_assert_eq!(&on_disk[on_disk.len() - t..], &data[data.len() - t..]);
                    prop_assert_eq!(stored.dropped_bytes as usize, data.len() - head - t);
                    let marker = &on_disk[head..on_disk.len() - t];
                    prop_assert!(marker.starts_with(b"\n[spill: ") && marker.ends_with(b"]\n"));
                }
                let env = envelope(&s, &opts, None, false).to_json();
                let bound = threshold.max(spill::limits::ENVELOPE_FLOOR) as usize;
                prop_assert!(env.len() <= bound, "{} > {}: {}", env.len(), bound, env);
                let v: serde_json::Value = serde_json::from_str(&env).expect("valid JSON");
                prop_assert_eq!(v["spilled"].as_bool(), Some(true));
                prop_assert_eq!(v["sizeBytes"].as_u64(), Some(data.len() as u64));
                prop_assert_eq!(v["lines"].as_u64(), Some(spill::text::count_lines(&data)));
            }
        }
    }

    #[test]
    fn a_refused_store_still_gives_a_bounded_degraded_envelope(
        data in output(),
        threshold in 0u64..8000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        // A regular file where the root should be: the store refuses, the input is not lost.
        let root = dir.path().join("not-a-dir");
        std::fs::write(&root, b"x").unwrap();
        let config = StoreConfig::new(root, "default".into());
        let opts = WrapOptions { max_inline: threshold, ..WrapOptions::default() };
        match capture(&mut &data[..], &opts, &config, &|| false).unwrap() {
            Capture::Inline(bytes) => prop_assert_eq!(bytes, data),
            Capture::Spilled(s) => {
                prop_assert!(s.stored.is_err());
                let env = envelope(&s, &opts, None, false).to_json();
                let bound = threshold.max(spill::limits::ENVELOPE_FLOOR) as usize;
                prop_assert!(env.len() <= bound, "{} > {}: {}", env.len(), bound, env);
                let v: serde_json::Value = serde_json::from_str(&env).expect("valid JSON");
                prop_assert_eq!(v["spilled"].as_bool(), Some(false));
                prop_assert!(v.get("ref").is_none() && v.get("hint").is_none());
                prop_assert!(v["error"].is_string());
            }
        }
    }
}
