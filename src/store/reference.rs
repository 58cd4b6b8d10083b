//! Refs: `sp_` followed by 16 lowercase hex digits, the first 64 bits of the payload's BLAKE3
//! hash. A ref is validated by its exact syntax before any file system access, so no ref can
//! name a path outside its scope.

use std::fmt;

/// A validated ref.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(u64);

impl Ref {
    /// Parses `sp_` + exactly 16 lowercase hex digits; anything else is not a ref.
    pub fn parse(text: &str) -> Option<Ref> {
        let hex = text.strip_prefix("sp_")?;
        if hex.len() != 16 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok().map(Ref)
    }

    /// True when `text` has the shape of a ref, used to tell refs from paths.
    pub fn looks_like(text: &str) -> bool {
        Ref::parse(text).is_some()
    }

    /// The ref of a payload with this BLAKE3 hash.
    pub fn from_hash(hash: &blake3::Hash) -> Ref {
        let bytes = hash.as_bytes();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes[..8]);
        Ref(u64::from_be_bytes(first))
    }

    /// The 16 hex digits, which are also the payload's file name in the scope directory.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sp_{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_syntax_is_a_ref() {
        let r = Ref::parse("sp_9f2c4a1b7e3d0c55").unwrap();
        assert_eq!(r.to_string(), "sp_9f2c4a1b7e3d0c55");
        assert_eq!(r.hex(), "9f2c4a1b7e3d0c55");
        for bad in [
            "sp_9F2C4A1B7E3D0C55",
            "sp_9f2c4a1b7e3d0c5",
            "sp_9f2c4a1b7e3d0c555",
            "sp_../../etc/passwd",
            "sp_9f2c4a1b7e3d0c5g",
            "9f2c4a1b7e3d0c55",
            "sp_+f2c4a1b7e3d0c55",
            "",
        ] {
            assert!(Ref::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn refs_come_from_the_hash_prefix() {
        let h = blake3::hash(b"hello");
        assert_eq!(Ref::from_hash(&h).hex(), h.to_hex()[..16]);
    }
}
