//! Short forms of a ref, for a person at a terminal: `@1` (or `@last`) is the newest entry of the
//! scope, `@2` the one before, and so on; `sp_4f9e` — `sp_` and 4 to 15 hex digits — is the
//! entry whose ref starts with them, resolved like a short git hash: exactly one entry must
//! match, and an ambiguous prefix is an error listing the candidates.
//!
//! A short form names an entry only at the moment it is read: the next `wrap` shifts `@1`, and a
//! new entry can make a prefix ambiguous. So commands that print follow-up commands print the
//! full ref they resolved to, never the short form.

use crate::error::{Error, Result};

use super::{Ref, Store};

/// The fewest hex digits a prefix may have (as git's short hashes).
pub const MIN_PREFIX: usize = 4;

/// At most this many candidates are listed when a prefix is ambiguous.
const LISTED: usize = 10;

/// A short form of a ref, before it is resolved against a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shorthand {
    /// `@N` (1-based, newest created first); `@last` is `@1`.
    Newest(usize),
    /// `sp_` + 4 to 15 lowercase hex digits.
    Prefix(String),
}

impl Shorthand {
    /// Recognises a short form by its syntax alone: `Ok(None)` for anything that is not one (a
    /// full ref included: that is [`Ref::parse`]'s). Every text that starts with `@` is meant as
    /// a short form, so one that is not valid (`@0`, `@`, `@LAST`, `@foo`) is an error naming
    /// the valid forms, never a file name: a file named `@foo` is read as `./@foo`.
    pub fn parse(text: &str) -> Result<Option<Shorthand>> {
        if let Some(n) = text.strip_prefix('@') {
            if n == "last" {
                return Ok(Some(Shorthand::Newest(1)));
            }
            // Plain decimal digits only: no sign, no spaces, no leading zero.
            let valid = !n.is_empty()
                && n.len() <= 9
                && !n.starts_with('0')
                && n.bytes().all(|b| b.is_ascii_digit());
            return match n.parse() {
                Ok(k) if valid => Ok(Some(Shorthand::Newest(k))),
                _ => Err(Error::Usage(format!(
                    "{:?} is not a short ref: the short forms are @1 (or @last) for the newest entry, @2 the one before (up to 9 digits, no leading zero), and sp_ with {MIN_PREFIX} to 15 hex digits; to read a file of that name, write ./{}",
                    crate::diag::echo(text),
                    crate::diag::echo(text)
                ))),
            };
        }
        let Some(hex) = text.strip_prefix("sp_") else {
            return Ok(None);
        };
        let ok = (MIN_PREFIX..16).contains(&hex.len())
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        Ok(ok.then(|| Shorthand::Prefix(hex.to_string())))
    }

    /// True for a form that is only ever a shorthand (`@…`); a prefix may also be a file name.
    pub fn is_at_form(&self) -> bool {
        matches!(self, Shorthand::Newest(_))
    }
}

impl Store {
    /// The entry of this scope that a short form names now. `typed` is the text as given, for
    /// messages.
    pub fn resolve(&self, short: &Shorthand, typed: &str) -> Result<Ref> {
        let entries = self.entries()?;
        match short {
            Shorthand::Newest(n) => match entries.get(n - 1) {
                Some(entry) => Ok(entry.reference),
                None => Err(Error::Usage(format!(
                    "{typed}: the scope {:?} holds {} (@1 is the newest; `spill ls` lists them)",
                    self.config.scope,
                    match entries.len() {
                        0 => "no entries".to_string(),
                        1 => "only 1 entry".to_string(),
                        k => format!("only {k} entries"),
                    }
                ))),
            },
            Shorthand::Prefix(hex) => {
                let matching: Vec<_> = entries
                    .iter()
                    .filter(|e| e.reference.hex().starts_with(hex.as_str()))
                    .collect();
                match matching.as_slice() {
                    [one] => Ok(one.reference),
                    [] => Err(Error::UnknownRef(typed.to_string())),
                    many => {
                        let mut listed: Vec<String> = many
                            .iter()
                            .take(LISTED)
                            .map(|e| match e.meta.label.as_deref() {
                                Some(label) => {
                                    format!("{} ({})", e.reference, crate::diag::echo(label))
                                }
                                None => e.reference.to_string(),
                            })
                            .collect();
                        if many.len() > LISTED {
                            listed.push(format!("and {} more", many.len() - LISTED));
                        }
                        Err(Error::Usage(format!(
                            "{typed} is ambiguous: {} entries of this scope start with it: {}; type more digits",
                            many.len(),
                            listed.join(", ")
                        )))
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms_are_recognised_by_their_syntax() {
        let parse = |t: &str| Shorthand::parse(t).expect(t);
        assert_eq!(parse("@1"), Some(Shorthand::Newest(1)));
        assert_eq!(parse("@last"), Some(Shorthand::Newest(1)));
        assert_eq!(parse("@12"), Some(Shorthand::Newest(12)));
        assert_eq!(parse("@999999999"), Some(Shorthand::Newest(999_999_999)));
        assert_eq!(parse("sp_4f9e"), Some(Shorthand::Prefix("4f9e".into())));
        assert_eq!(
            parse("sp_0123456789abcde"),
            Some(Shorthand::Prefix("0123456789abcde".into()))
        );
        // Not short forms, and not meant as one: left to the full-ref and path rules.
        for not in [
            "sp_",
            "sp_4f9",
            "sp_4F9E",
            "sp_4f9g",
            "sp_0123456789abcdef",
            "4f9e",
            "-",
            "file.json",
            "./@1",
            "a@1",
        ] {
            assert_eq!(parse(not), None, "{not}");
        }
        // Meant as a short form (it starts with @) but not a valid one: an error naming the
        // valid forms and the way to the file.
        for bad in [
            "@",
            "@0",
            "@01",
            "@-1",
            "@+1",
            "@ 1",
            "@1x",
            "@LAST",
            "@lastt",
            "@foo",
            "@1234567890",
        ] {
            let Err(Error::Usage(message)) = Shorthand::parse(bad) else {
                panic!("{bad} should be refused");
            };
            assert!(
                message.contains("not a short ref")
                    && message.contains("@last")
                    && message.contains("sp_")
                    && message.contains(&format!("./{bad}")),
                "{bad}: {message}"
            );
        }
        assert!(parse("@2").unwrap().is_at_form());
        assert!(!parse("sp_abcd").unwrap().is_at_form());
    }
}
