//! I-Regexp (RFC 9485) checked and translated to the `regex` crate's syntax.
//!
//! The translation is a single iterative pass (no recursion, so a pattern taken from the
//! document cannot exhaust the stack); the `regex` crate then enforces its own nesting and
//! size limits. A pattern that is not valid I-Regexp yields an error saying why, which
//! `match()` and `search()` turn into LogicalFalse (RFC 9535 §2.4.6) and `extract` reports in
//! a note ([`check`]).

use regex::{Regex, RegexBuilder};

/// Why a pattern is not valid I-Regexp: a lower-case phrase.
type Invalid = String;

/// Translates `pattern`; `full` anchors it at both ends (for `match()`).
pub(crate) fn translate(pattern: &str, full: bool) -> Result<String, Invalid> {
    let mut out = String::with_capacity(pattern.len() + 16);
    out.push_str(if full { r"\A(?:" } else { "(?:" });
    let mut chars = pattern.chars().peekable();
    let mut depth = 0usize;
    // Whether the previous piece was an atom that a quantifier may follow, and whether it was
    // an opening parenthesis (for the message about `(?`).
    let mut can_quantify = false;
    let mut after_open = false;
    while let Some(c) = chars.next() {
        let opened = std::mem::take(&mut after_open);
        match c {
            '(' => {
                out.push_str("(?:");
                depth += 1;
                can_quantify = false;
                after_open = true;
            }
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("`)` closes no group (a literal parenthesis is `\\)`)")?;
                out.push(')');
                can_quantify = true;
            }
            '|' => {
                out.push('|');
                can_quantify = false;
            }
            '?' if opened => {
                return Err(
                    "I-Regexp has no inline flags such as `(?i)` and no other `(?` groups".into(),
                );
            }
            '*' | '+' | '?' => {
                if !can_quantify {
                    return Err(format!("`{c}` follows nothing it could repeat"));
                }
                out.push(c);
                can_quantify = false;
            }
            '{' => {
                if !can_quantify {
                    return Err("`{` follows nothing it could repeat".into());
                }
                quantifier(&mut chars, &mut out)?;
                can_quantify = false;
            }
            '.' => {
                // I-Regexp's '.' excludes only \n and \r (the regex crate's excludes only \n).
                out.push_str(r"[^\n\r]");
                can_quantify = true;
            }
            '\\' => {
                escape(&mut chars, &mut out)?;
                can_quantify = true;
            }
            '[' => {
                class(&mut chars, &mut out)?;
                can_quantify = true;
            }
            // RFC 9485 lists '^' and '$' as ordinary characters, but the compliance suite
            // (and the ECMAScript-based implementations it mirrors) treat them as anchors.
            '^' => {
                out.push('^');
                can_quantify = false;
            }
            '$' => {
                out.push('$');
                can_quantify = false;
            }
            ']' | '}' => {
                return Err(format!("`{c}` opens nothing (a literal one is `\\{c}`)"));
            }
            c => {
                push_literal(&mut out, c);
                can_quantify = true;
            }
        }
    }
    if depth != 0 {
        return Err("a `(` is never closed".into());
    }
    out.push_str(if full { r")\z" } else { ")" });
    Ok(out)
}

/// Compiles an I-Regexp pattern, or says why it is invalid (or beyond the crate's limits).
pub(crate) fn compile(pattern: &str, full: bool) -> Result<Regex, Invalid> {
    let translated = translate(pattern, full)?;
    RegexBuilder::new(&translated)
        .size_limit(1 << 22)
        .build()
        .map_err(|_| "it is too large to compile".into())
}

/// Whether a pattern given to `match()` (`full`) or `search()` compiles; why not if not.
pub(crate) fn check(pattern: &str, full: bool) -> Result<(), Invalid> {
    compile(pattern, full).map(drop)
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn push_literal(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
}

/// The rest of `{n}`, `{n,}` or `{n,m}`, the `{` already read.
fn quantifier(chars: &mut Chars, out: &mut String) -> Result<(), Invalid> {
    let not_one = || "`{` starts no quantifier `{n}`, `{n,}` or `{n,m}`".to_string();
    out.push('{');
    let mut digits = 0;
    while let Some(d) = chars.next_if(char::is_ascii_digit) {
        out.push(d);
        digits += 1;
    }
    if digits == 0 {
        return Err(not_one());
    }
    if chars.next_if_eq(&',').is_some() {
        out.push(',');
        while let Some(d) = chars.next_if(char::is_ascii_digit) {
            out.push(d);
        }
    }
    if chars.next() != Some('}') {
        return Err(not_one());
    }
    out.push('}');
    Ok(())
}

/// The characters RFC 9485 `SingleCharEsc` may escape (besides n, r, t).
fn is_single_char_esc(c: char) -> bool {
    matches!(
        c,
        '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{' | '|' | '}'
    )
}

/// The message for a backslash before `c`, which I-Regexp does not define.
fn bad_escape(c: Option<char>) -> Invalid {
    match c {
        None => "it ends with a lone `\\`".into(),
        Some(c @ ('d' | 'D' | 'w' | 'W' | 's' | 'S' | 'b' | 'B')) => format!(
            "`\\{c}` is not an I-Regexp escape (use a class such as `[0-9]` or `\\p{{Nd}}`)"
        ),
        Some(c) => format!("`\\{c}` is not an I-Regexp escape"),
    }
}

/// After a backslash outside a class: `SingleCharEsc` or `\p{…}`/`\P{…}`.
fn escape(chars: &mut Chars, out: &mut String) -> Result<(), Invalid> {
    match chars.next() {
        Some('n') => out.push_str(r"\n"),
        Some('r') => out.push_str(r"\r"),
        Some('t') => out.push_str(r"\t"),
        Some(c @ ('p' | 'P')) => category(c, chars, out)?,
        Some(c) if is_single_char_esc(c) => push_literal(out, c),
        c => return Err(bad_escape(c)),
    }
    Ok(())
}

/// `\p{Cat}` / `\P{Cat}` with the RFC 9485 general categories.
fn category(p: char, chars: &mut Chars, out: &mut String) -> Result<(), Invalid> {
    let bad = || format!("`\\{p}` takes a general category such as `\\{p}{{Lu}}`");
    if chars.next() != Some('{') {
        return Err(bad());
    }
    let major = chars.next().ok_or_else(bad)?;
    let allowed_minor: &str = match major {
        'L' => "lmotu",
        'M' => "cen",
        'N' => "dlo",
        'P' => "cdefios",
        'Z' => "lps",
        'S' => "ckmo",
        'C' => "cfno",
        _ => return Err(bad()),
    };
    let mut name = String::from(major);
    match chars.next() {
        Some('}') => {}
        Some(minor) if allowed_minor.contains(minor) => {
            name.push(minor);
            if chars.next() != Some('}') {
                return Err(bad());
            }
        }
        _ => return Err(bad()),
    }
    out.push('\\');
    out.push(p);
    out.push('{');
    out.push_str(&name);
    out.push('}');
    Ok(())
}

/// One class member: a character (possibly escaped) or a category escape.
enum Member {
    Char(char),
    Category(String),
}

fn class_member(c: char, chars: &mut Chars) -> Result<Member, Invalid> {
    match c {
        '\\' => match chars.next() {
            Some('n') => Ok(Member::Char('\n')),
            Some('r') => Ok(Member::Char('\r')),
            Some('t') => Ok(Member::Char('\t')),
            Some(p @ ('p' | 'P')) => {
                let mut s = String::new();
                category(p, chars, &mut s)?;
                Ok(Member::Category(s))
            }
            Some(e) if is_single_char_esc(e) => Ok(Member::Char(e)),
            e => Err(bad_escape(e)),
        },
        '[' => Err(
            "`[` inside a class must be escaped as `\\[` (I-Regexp has no POSIX \
             classes such as `[:upper:]`: use `\\p{Lu}`)"
                .into(),
        ),
        '-' => Err("`-` inside a class makes a range, or comes first or last".into()),
        ']' => Err("a class is empty".into()),
        c => Ok(Member::Char(c)),
    }
}

/// `"[" ["^"] ("-" / CCE1) *CCE1 ["-"] "]"`, the `[` already read.
fn class(chars: &mut Chars, out: &mut String) -> Result<(), Invalid> {
    let unclosed = || "a `[` is never closed".to_string();
    out.push('[');
    if chars.next_if_eq(&'^').is_some() {
        out.push('^');
    }
    let mut first = true;
    loop {
        let c = chars.next().ok_or_else(unclosed)?;
        if c == ']' && !first {
            break;
        }
        if c == '-' && (first || chars.peek() == Some(&']')) {
            // A literal '-' only first or last.
            out.push_str(r"\-");
            first = false;
            continue;
        }
        first = false;
        match class_member(c, chars)? {
            Member::Category(s) => out.push_str(&s),
            Member::Char(lo) => {
                push_literal(out, lo);
                let mut ahead = chars.clone();
                if ahead.next() == Some('-') && ahead.peek().is_some_and(|&n| n != ']') {
                    chars.next();
                    let hi_c = chars.next().ok_or_else(unclosed)?;
                    let Member::Char(hi) = class_member(hi_c, chars)? else {
                        return Err("a range ends in a category".into());
                    };
                    if hi < lo {
                        return Err(format!("the range `{lo}-{hi}` is out of order"));
                    }
                    out.push('-');
                    push_literal(out, hi);
                }
            }
        }
    }
    out.push(']');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::compile;

    fn full(p: &str, s: &str) -> Option<bool> {
        compile(p, true).ok().map(|r| r.is_match(s))
    }

    #[test]
    fn anchoring_and_dot() {
        assert_eq!(full("a.c", "abc"), Some(true));
        assert_eq!(full("a.c", "abcd"), Some(false));
        assert_eq!(full("a.c", "a\nc"), Some(false));
        assert_eq!(full("a.c", "a\rc"), Some(false));
        assert_eq!(
            compile("b", false).ok().map(|r| r.is_match("abc")),
            Some(true)
        );
    }

    #[test]
    fn literals_that_are_regex_syntax_elsewhere() {
        assert_eq!(full("a$", "a"), Some(true));
        assert_eq!(full("^a", "a"), Some(true));
        assert_eq!(full(r"a\^", "a^"), Some(true));
        assert_eq!(
            compile("^b", false).ok().map(|r| r.is_match("ab")),
            Some(false)
        );
        assert_eq!(full("[^a]", "b"), Some(true));
        assert_eq!(full("[a-]", "-"), Some(true));
        assert_eq!(full("[-a]", "-"), Some(true));
    }

    #[test]
    fn categories_classes_and_quantifiers() {
        assert_eq!(full(r"\p{Lu}+", "ÀB"), Some(true));
        assert_eq!(full(r"[\p{Nd}x]{2,3}", "1x"), Some(true));
        assert_eq!(full(r"\P{L}", "1"), Some(true));
        assert_eq!(full(r"\p{Cn}", "\u{378}"), Some(true));
        assert_eq!(full("(ab)*", "abab"), Some(true));
        assert_eq!(full("a{2}", "aa"), Some(true));
    }

    #[test]
    fn invalid_patterns_are_none() {
        for p in [
            "(", ")", "a**", "*a", "[]", "[a-b-c]", r"\d", r"\w", "a{", "a{,2}", "]", "}",
            r"\p{Xx}", r"\p{Lx}", "[b-a]", "(?:a)", "a|*",
        ] {
            assert!(compile(p, true).is_err(), "{p} should be invalid");
        }
    }

    #[test]
    fn deep_nesting_does_not_crash() {
        let p = "(".repeat(100_000) + &")".repeat(100_000);
        assert!(compile(&p, true).is_err());
    }
}
