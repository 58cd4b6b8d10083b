//! `hexdump -C` style dumps: offset, 16 lowercase space-separated byte pairs (a gap after 8),
//! and an ASCII gutter.

use std::fmt::Write;

/// Dumps `bytes`, numbering offsets from `start`, ending with the final offset line like hexdump.
pub fn dump(bytes: &[u8], start: u64) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 + 16);
    for (i, row) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x} ", start + (i as u64) * 16);
        for j in 0..16 {
            if j == 8 {
                out.push(' ');
            }
            match row.get(j) {
                Some(b) => {
                    let _ = write!(out, " {b:02x}");
                }
                None => out.push_str("   "),
            }
        }
        out.push_str("  |");
        out.extend(row.iter().map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        }));
        out.push_str("|\n");
    }
    let _ = writeln!(out, "{:08x}", start + bytes.len() as u64);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_hexdump_c() {
        assert_eq!(
            super::dump(b"hello, world\n\x00\xff!!!", 0),
            "00000000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64 0a 00 ff 21  |hello, world...!|\n\
             00000010  21 21                                             |!!|\n\
             00000012\n"
        );
        assert_eq!(super::dump(b"", 32), "00000020\n");
    }
}
