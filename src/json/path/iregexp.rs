//! I-Regexp (RFC 9485) checked and translated to the `regex` crate's syntax.
//!
//! The translation is a single iterative pass (no recursion, so a pattern taken from the
//! document cannot exhaust the stack); the `regex` crate then enforces its own nesting and
//! size limits. A pattern that is not valid I-Regexp yields `None`, which `match()` and
//! `search()` turn into LogicalFalse (RFC 9535 §2.4.6).

use regex::{Regex, RegexBuilder};

/// Translates `pattern`; `full` anchors it at both ends (for `match()`).
pub(crate) fn translate(pattern: &str, full: bool) -> Option<String> {
    let mut out = String::with_capacity(pattern.len() + 16);
    out.push_str(if full { r"\A(?:" } else { "(?:" });
    let mut chars = pattern.chars().peekable();
    let mut depth = 0usize;
    // Whether the previous piece was an atom that a quantifier may follow.
    let mut can_quantify = false;
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                out.push_str("(?:");
                depth += 1;
                can_quantify = false;
            }
            ')' => {
                depth = depth.checked_sub(1)?;
                out.push(')');
                can_quantify = true;
            }
            '|' => {
                out.push('|');
                can_quantify = false;
            }
            '*' | '+' | '?' => {
                if !can_quantify {
                    return None;
                }
                out.push(c);
                can_quantify = false;
            }
            '{' => {
                if !can_quantify {
                    return None;
                }
                out.push('{');
                let mut digits = 0;
                while let Some(&d) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    out.push(d);
                    chars.next();
                    digits += 1;
                }
                if digits == 0 {
                    return None;
                }
                if chars.peek() == Some(&',') {
                    chars.next();
                    out.push(',');
                    while let Some(&d) = chars.peek() {
                        if !d.is_ascii_digit() {
                            break;
                        }
                        out.push(d);
                        chars.next();
                    }
                }
                if chars.next() != Some('}') {
                    return None;
                }
                out.push('}');
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
            ']' | '}' => return None,
            c => {
                push_literal(&mut out, c);
                can_quantify = true;
            }
        }
    }
    if depth != 0 {
        return None;
    }
    out.push_str(if full { r")\z" } else { ")" });
    Some(out)
}

/// Compiles an I-Regexp pattern, or `None` when it is invalid (or beyond the crate's limits).
pub(crate) fn compile(pattern: &str, full: bool) -> Option<Regex> {
    let translated = translate(pattern, full)?;
    RegexBuilder::new(&translated)
        .size_limit(1 << 22)
        .build()
        .ok()
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn push_literal(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
}

/// The characters RFC 9485 `SingleCharEsc` may escape (besides n, r, t).
fn is_single_char_esc(c: char) -> bool {
    matches!(
        c,
        '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{' | '|' | '}'
    )
}

/// After a backslash outside a class: `SingleCharEsc` or `\p{…}`/`\P{…}`.
fn escape(chars: &mut Chars, out: &mut String) -> Option<()> {
    match chars.next()? {
        'n' => out.push_str(r"\n"),
        'r' => out.push_str(r"\r"),
        't' => out.push_str(r"\t"),
        c @ ('p' | 'P') => category(c, chars, out)?,
        c if is_single_char_esc(c) => push_literal(out, c),
        _ => return None,
    }
    Some(())
}

/// `\p{Cat}` / `\P{Cat}` with the RFC 9485 general categories.
fn category(p: char, chars: &mut Chars, out: &mut String) -> Option<()> {
    if chars.next()? != '{' {
        return None;
    }
    let major = chars.next()?;
    let allowed_minor: &str = match major {
        'L' => "lmotu",
        'M' => "cen",
        'N' => "dlo",
        'P' => "cdefios",
        'Z' => "lps",
        'S' => "ckmo",
        'C' => "cfno",
        _ => return None,
    };
    let mut name = String::from(major);
    match chars.next()? {
        '}' => {}
        minor if allowed_minor.contains(minor) => {
            name.push(minor);
            if chars.next()? != '}' {
                return None;
            }
        }
        _ => return None,
    }
    out.push('\\');
    out.push(p);
    out.push('{');
    out.push_str(&name);
    out.push('}');
    Some(())
}

/// One class member: a character (possibly escaped) or a category escape.
enum Member {
    Char(char),
    Category(String),
}

fn class_member(c: char, chars: &mut Chars) -> Option<Member> {
    match c {
        '\\' => match chars.next()? {
            'n' => Some(Member::Char('\n')),
            'r' => Some(Member::Char('\r')),
            't' => Some(Member::Char('\t')),
            p @ ('p' | 'P') => {
                let mut s = String::new();
                category(p, chars, &mut s)?;
                Some(Member::Category(s))
            }
            e if is_single_char_esc(e) => Some(Member::Char(e)),
            _ => None,
        },
        '[' | ']' | '-' => None,
        c => Some(Member::Char(c)),
    }
}

/// `"[" ["^"] ("-" / CCE1) *CCE1 ["-"] "]"`, the `[` already read.
fn class(chars: &mut Chars, out: &mut String) -> Option<()> {
    out.push('[');
    if chars.peek() == Some(&'^') {
        chars.next();
        out.push('^');
    }
    let mut first = true;
    loop {
        let c = chars.next()?;
        if c == ']' && !first {
            break;
        }
        if c == '-' {
            // A literal '-' only first or last.
            if first || chars.peek() == Some(&']') {
                out.push_str(r"\-");
                first = false;
                continue;
            }
            return None;
        }
        first = false;
        match class_member(c, chars)? {
            Member::Category(s) => out.push_str(&s),
            Member::Char(lo) => {
                push_literal(out, lo);
                let mut ahead = chars.clone();
                if ahead.next() == Some('-') && ahead.peek().is_some_and(|&n| n != ']') {
                    chars.next();
                    let hi_c = chars.next()?;
                    let Member::Char(hi) = class_member(hi_c, chars)? else {
                        return None;
                    };
                    if hi < lo {
                        return None;
                    }
                    out.push('-');
                    push_literal(out, hi);
                }
            }
        }
    }
    out.push(']');
    Some(())
}

#[cfg(test)]
mod tests {
    use super::compile;

    fn full(p: &str, s: &str) -> Option<bool> {
        compile(p, true).map(|r| r.is_match(s))
    }

    #[test]
    fn anchoring_and_dot() {
        assert_eq!(full("a.c", "abc"), Some(true));
        assert_eq!(full("a.c", "abcd"), Some(false));
        assert_eq!(full("a.c", "a\nc"), Some(false));
        assert_eq!(full("a.c", "a\rc"), Some(false));
        assert_eq!(compile("b", false).map(|r| r.is_match("abc")), Some(true));
    }

    #[test]
    fn literals_that_are_regex_syntax_elsewhere() {
        assert_eq!(full("a$", "a"), Some(true));
        assert_eq!(full("^a", "a"), Some(true));
        assert_eq!(full(r"a\^", "a^"), Some(true));
        assert_eq!(compile("^b", false).map(|r| r.is_match("ab")), Some(false));
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
            assert!(compile(p, true).is_none(), "{p} should be invalid");
        }
    }

    #[test]
    fn deep_nesting_does_not_crash() {
        let p = "(".repeat(100_000) + &")".repeat(100_000);
        assert!(compile(&p, true).is_none());
    }
}
