//! Rare values in text records: the one row of an aligned table whose status column says
//! `failed` among 300 `active`, the one `key=value` line whose `status=503` stands among 499
//! `status=200`. The text counterpart of the JSON engine's rare record values
//! (`json::analyze::records_standing_out`), with the same thresholds; it reads the ranking's
//! window only (at most 16,384 lines), so its cost does not grow with the input.
//!
//! Two kinds of record are read, and no tool is named:
//! - `key=value` pairs (logfmt, `ip -o`, many daemons' logs): every line with two or more pairs
//!   is a record, each key a field; a value in quotes is not compared.
//! - aligned columns: a run of consecutive lines with three or more blank-separated fields is a
//!   table, each column after the first one a field (the first is a row's name or its verb), its
//!   header the run's first line when that line is all capitals (`NAME  READY  STATUS`), else
//!   the word every row writes before it (`state UP`), else `column N`. Only words and codes
//!   of one to three digits (an HTTP status, an exit code) compare — a size or a duration is a
//!   number that takes too many values to be a category, see `rank::extremes` — never the
//!   last field (a name), and never the rows of a long listing (`ls -l`: owners and link counts).
//!
//! A value is rare when at most 1% of a field's holders (and at least one) hold it, the field
//! has 20 or more holders and takes few values (at most one per 10 holders, or 4), and one
//! value holds 80% of them (an access log's `200` beside its 10% of `304`s).

use std::collections::HashMap;

/// A field has at least this many holders to be compared.
const HOLDERS_MIN: usize = 20;
/// A value is rare when at most one holder in this many holds it (and at least one).
const RARE_SHARE: usize = 100;
/// A field takes at most one value per this many holders (and at least 4) to be a category.
const CATEGORY_SHARE: usize = 10;
/// One value holds at least this many tenths of the holders.
const DOMINANT_TENTHS: usize = 8;
/// Fields counted at most in one set of records (the first ones met).
const FIELDS_MAX: usize = 64;
/// Columns of a table compared at most (the first ones).
const COLUMNS_MAX: usize = 12;
/// A value longer than this is not a category.
const VALUE_MAX: usize = 48;

/// A record holding a rare value of one of its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RareValue {
    /// The index of the record's line in the lines given.
    pub index: usize,
    /// The field's name: the key, or the column's header word (`STATUS`), or the label before
    /// it (`state`), or `column 3`.
    pub field: String,
    /// The rare value as written.
    pub value: String,
    /// What finds the line in the output: `status=503`, or the value.
    pub search: String,
    /// How many records hold the value.
    pub count: usize,
    /// How many records hold the field.
    pub holders: usize,
    /// The dominant value and how many hold it.
    pub dominant: (String, usize),
    /// True for `key=value` records (else a table's column).
    pub pair: bool,
}

impl RareValue {
    /// `status: 503 in 1 of 500 records (200 in 499)`.
    pub fn note(&self) -> String {
        let g = |n: usize| crate::limits::group_digits(n as u64);
        format!(
            "{}: {} in {} of {} {} ({} in {})",
            self.field,
            self.value,
            g(self.count),
            g(self.holders),
            self.unit(),
            self.dominant.0,
            g(self.dominant.1)
        )
    }

    /// `1 of 500 records has status 503`.
    pub fn sentence(&self) -> String {
        let g = |n: usize| crate::limits::group_digits(n as u64);
        format!(
            "{} of {} {} {} {} {}",
            g(self.count),
            g(self.holders),
            self.unit(),
            if self.count == 1 { "has" } else { "have" },
            self.field,
            self.value
        )
    }

    fn unit(&self) -> &'static str {
        if self.pair { "records" } else { "rows" }
    }
}

/// One counted field.
struct Field<'a> {
    name: String,
    /// value → (holders, first index)
    values: HashMap<&'a [u8], (usize, usize)>,
    holders: usize,
    dropped: bool,
}

impl<'a> Field<'a> {
    fn new(name: String) -> Self {
        Field {
            name,
            values: HashMap::new(),
            holders: 0,
            dropped: false,
        }
    }

    fn add(&mut self, value: &'a [u8], index: usize) {
        if self.dropped {
            return;
        }
        self.holders += 1;
        self.values.entry(value).or_insert((0, index)).0 += 1;
        // An id, not a category: stop counting it (bounds the heap).
        if self.holders >= 50 && self.values.len() > 4 + self.holders / CATEGORY_SHARE {
            self.dropped = true;
            self.values = HashMap::new();
        }
    }

    /// True when the field takes few values (at most one per 10 holders, or 4) and has enough
    /// holders to compare.
    fn category(&self) -> bool {
        !self.dropped
            && self.holders >= HOLDERS_MIN
            && self.values.len() <= (self.holders / CATEGORY_SHARE).max(4)
    }

    /// The field's rare values: (value, holders, first index), when it is a category one value
    /// dominates.
    fn rare(&self) -> Vec<(&'a [u8], usize, usize)> {
        if !self.category() {
            return Vec::new();
        }
        let top = self.values.values().map(|v| v.0).max().unwrap_or(0);
        if top * 10 < self.holders * DOMINANT_TENTHS {
            return Vec::new();
        }
        let rare_max = (self.holders / RARE_SHARE).max(1);
        let mut out: Vec<_> = self
            .values
            .iter()
            .filter(|(_, (c, _))| *c <= rare_max)
            .map(|(v, (c, i))| (*v, *c, *i))
            .collect();
        out.sort_by_key(|&(v, c, i)| (c, i, v));
        out
    }

    fn dominant(&self) -> (String, usize) {
        self.values
            .iter()
            .max_by_key(|(v, (c, i))| (*c, std::cmp::Reverse(*i), *v))
            .map(|(v, (c, _))| (String::from_utf8_lossy(v).into_owned(), *c))
            .unwrap_or_default()
    }
}

/// The `key=value` pairs of a line: unquoted values, keys that start with a letter.
fn pairs(line: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    line.split(|b| b.is_ascii_whitespace()).filter_map(|w| {
        let eq = memchr::memchr(b'=', w)?;
        let (k, v) = (&w[..eq], &w[eq + 1..]);
        let key_ok = k.first().is_some_and(u8::is_ascii_alphabetic)
            && k.iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        let value_ok = !v.is_empty()
            && v.len() <= VALUE_MAX
            && !matches!(v[0], b'"' | b'\'' | b'`')
            && !v.contains(&b'=');
        (key_ok && value_ok).then_some((k, v))
    })
}

/// A column value that compares: a word of letters (and `-`, `_`, `.`), no digits.
fn word(v: &[u8]) -> bool {
    v.len() >= 2
        && v.len() <= VALUE_MAX
        && v.first().is_some_and(u8::is_ascii_alphabetic)
        && v.iter()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'))
}

/// A column value that is a code: one to three digits (an HTTP status, an exit code, a restart
/// count). A measure (a size, a duration) takes too many values to be a category, so it is never
/// compared, though it is digits too.
fn code(v: &[u8]) -> bool {
    (1..=3).contains(&v.len()) && v.iter().all(u8::is_ascii_digit)
}

/// A table's header: all its fields capitals (`NAME`, `READY`, `CREATED_AT`).
fn header(fields: &[&[u8]]) -> bool {
    fields.iter().all(|f| {
        f.iter().any(u8::is_ascii_uppercase)
            && f.iter()
                .all(|b| b.is_ascii_uppercase() || matches!(b, b'_' | b'-' | b'%' | b'/'))
    })
}

/// The blank-separated fields of a line.
fn split(line: &[u8]) -> Vec<&[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The records among `lines` (consecutive when their numbers are) that hold a rare value, rarest
/// first, at most one per line; see the module docs for the rules.
pub fn rare_values(lines: &[(u64, &[u8])]) -> Vec<RareValue> {
    let mut out = Vec::new();
    // key=value records.
    let mut fields: Vec<Field<'_>> = Vec::new();
    for (i, (_, line)) in lines.iter().enumerate() {
        if memchr::memchr(b'=', line).is_none()
            || matches!(line.trim_ascii_start().first(), Some(b'{' | b'['))
        {
            continue;
        }
        if pairs(line).nth(1).is_none() {
            continue;
        }
        for (k, v) in pairs(line) {
            let f = match fields.iter().position(|f| f.name.as_bytes() == k) {
                Some(f) => f,
                None if fields.len() < FIELDS_MAX => {
                    fields.push(Field::new(String::from_utf8_lossy(k).into_owned()));
                    fields.len() - 1
                }
                None => continue,
            };
            fields[f].add(v, i);
        }
    }
    for f in &fields {
        for (v, c, i) in f.rare() {
            let value = String::from_utf8_lossy(v).into_owned();
            out.push(RareValue {
                index: i,
                search: format!("{}={value}", f.name),
                field: f.name.clone(),
                value,
                count: c,
                holders: f.holders,
                dominant: f.dominant(),
                pair: true,
            });
        }
    }
    // Tables: runs of consecutive lines of three or more fields.
    let mut start = 0;
    while start < lines.len() {
        let row = |k: usize| {
            let (_, l) = lines[k];
            l.split(|b| b.is_ascii_whitespace())
                .filter(|w| !w.is_empty())
                .nth(2)
                .is_some()
                && !matches!(l.trim_ascii_start().first(), Some(b'{' | b'['))
                && (memchr::memchr(b'=', l).is_none() || pairs(l).next().is_none())
                && !super::rank::is_listing(l)
        };
        if !row(start) {
            start += 1;
            continue;
        }
        let mut end = start + 1;
        while end < lines.len() && row(end) && lines[end].0 == lines[end - 1].0 + 1 {
            end += 1;
        }
        out.extend(table_rare(lines, start, end));
        start = end;
    }
    out.sort_by_key(|r| (r.count, r.index));
    let mut taken = std::collections::HashSet::new();
    out.retain(|r| taken.insert(r.index));
    out
}

/// The rare values of the table `lines[start..end]`.
fn table_rare<'a>(lines: &[(u64, &'a [u8])], start: usize, end: usize) -> Vec<RareValue> {
    if end - start < HOLDERS_MIN {
        return Vec::new();
    }
    let first = split(lines[start].1);
    let head = header(&first).then_some(first);
    let body = start + usize::from(head.is_some());
    let mut columns: Vec<Field<'a>> = (0..COLUMNS_MAX)
        .map(|c| {
            let name = head
                .as_ref()
                .and_then(|h| h.get(c))
                .map_or(format!("column {}", c + 1), |w| {
                    String::from_utf8_lossy(w).into_owned()
                });
            Field::new(name)
        })
        .collect();
    for (i, &(_, line)) in lines.iter().enumerate().take(end).skip(body) {
        let f = split(line);
        // Not the first field (a name, a verb) nor the last (a name).
        for (c, v) in f.iter().enumerate().take(f.len() - 1).skip(1) {
            if c < COLUMNS_MAX && (word(v) || code(v)) {
                columns[c].add(v, i);
            }
        }
    }
    // The row must look like the others: with the category columns masked, its fields are
    // those of a row holding the dominant value but for one at most (its flags may differ
    // too), a field with digits standing for any other, a word for itself, any other field
    // for any other such; a traceback's `File …, line 8` among `request 12 served in 5 ms` is
    // another kind of line, not a rare value.
    let category: Vec<bool> = columns.iter().map(Field::category).collect();
    let signature = |i: usize| -> Vec<Vec<u8>> {
        split(lines[i].1)
            .iter()
            .enumerate()
            .map(|(k, f)| {
                if category.get(k).copied().unwrap_or(false) {
                    b"*".to_vec()
                } else if f.iter().any(u8::is_ascii_digit) {
                    b"0".to_vec()
                } else if f.iter().all(u8::is_ascii_alphabetic) {
                    f.to_vec()
                } else {
                    b"x".to_vec()
                }
            })
            .collect()
    };
    let mut out = Vec::new();
    for (k, col) in columns.iter().enumerate() {
        let rare = col.rare();
        if rare.is_empty() {
            continue;
        }
        // Without a header, a label every row writes before the value names it (`state UP`).
        let label = k
            .checked_sub(1)
            .map(|p| &columns[p])
            .filter(|p| head.is_none() && p.holders == col.holders && p.values.len() == 1)
            .and_then(|p| p.values.keys().next())
            .map(|w| String::from_utf8_lossy(w).into_owned());
        let name = label.unwrap_or_else(|| col.name.clone());
        let dominant = col.dominant().0;
        let others: Vec<Vec<Vec<u8>>> = (body..end)
            .filter(|&j| {
                split(lines[j].1)
                    .get(k)
                    .is_some_and(|v| *v == dominant.as_bytes())
            })
            .take(64)
            .map(signature)
            .collect();
        for (v, c, i) in rare {
            let mine = signature(i);
            let like = |o: &Vec<Vec<u8>>| {
                o.len() == mine.len() && o.iter().zip(&mine).filter(|(a, b)| a != b).count() <= 1
            };
            if !others.iter().any(like) {
                continue;
            }
            let value = String::from_utf8_lossy(v).into_owned();
            out.push(RareValue {
                index: i,
                field: name.clone(),
                search: value.clone(),
                value,
                count: c,
                holders: col.holders,
                dominant: col.dominant(),
                pair: false,
            });
        }
    }
    out
}

/// Blocks a layout is compared over at least.
const BLOCKS_MIN: usize = 20;
/// A block longer than this many lines is not compared (a section, not a record).
const BLOCK_LINES_MAX: usize = 64;

/// A block of lines laid out unlike the blocks around it: the one commit of a `git log` that
/// has a body among 399 that have a subject only. A block starts at a line that begins, at
/// column 0, with the word most lines at column 0 begin with (`commit`, seen on 20 or more
/// lines and never on two consecutive ones) and runs to the next such line; its layout is each
/// line's kind (blank, indented, a `Label:` by its label, other; a run of one kind counts
/// once), and a long listing's blocks are not compared. The same rule as a rare
/// value, the layout being the value: one layout holds 80% of the blocks, and at most 1% (and
/// at least one) hold this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RareBlock {
    /// The index (into the lines given) of the block's first line.
    pub first: usize,
    /// The index of its last line.
    pub last: usize,
    /// The word its lines start with (`commit`).
    pub word: String,
    /// How many blocks have its layout.
    pub count: usize,
    /// How many blocks were compared.
    pub blocks: usize,
    /// How many blocks have the dominant layout, and its length in lines.
    pub dominant: (usize, usize),
}

impl RareBlock {
    /// `1 of 400 blocks starting "commit" is laid out unlike the others (8 lines; 399 have 6)`.
    pub fn note(&self) -> String {
        let g = |n: usize| crate::limits::group_digits(n as u64);
        format!(
            "{} ({} lines; {} have {})",
            self.sentence(),
            g(self.last - self.first + 1),
            g(self.dominant.0),
            g(self.dominant.1)
        )
    }

    /// `1 of 400 blocks starting "commit" is laid out unlike the others`.
    pub fn sentence(&self) -> String {
        let g = |n: usize| crate::limits::group_digits(n as u64);
        format!(
            "{} of {} blocks starting \"{}\" {} laid out unlike the others",
            g(self.count),
            g(self.blocks),
            self.word,
            if self.count == 1 { "is" } else { "are" }
        )
    }
}

/// The word a line starts with at column 0, when it is a word (letters, then letters, digits,
/// `_` or `-`; a trailing `:` allowed).
fn head_word(line: &[u8]) -> Option<&[u8]> {
    let w = line.split(u8::is_ascii_whitespace).next()?;
    let w = w.strip_suffix(b":").unwrap_or(w);
    (w.len() >= 2
        && w.len() <= VALUE_MAX
        && w[0].is_ascii_alphabetic()
        && w.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')))
    .then_some(w)
}

/// The kind of a line inside a block, for its layout; `head` is its [`head_word`].
fn line_kind(line: &[u8], head: Option<&[u8]>, word: &[u8]) -> Vec<u8> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return b"~".to_vec();
    }
    if line[0].is_ascii_whitespace() {
        return b">".to_vec();
    }
    let first = line.split(u8::is_ascii_whitespace).next().unwrap_or(line);
    if first.ends_with(b":") && head.is_some() || head == Some(word) {
        return first.to_vec();
    }
    b"*".to_vec()
}

/// The first block among `lines` (consecutive when their numbers are) laid out unlike the
/// others, if one is; see [`RareBlock`].
pub fn rare_block(lines: &[(u64, &[u8])]) -> Option<RareBlock> {
    // word → (lines, seen on consecutive lines, first index)
    let mut words: HashMap<&[u8], (usize, bool, usize)> = HashMap::new();
    let heads: Vec<Option<&[u8]>> = lines.iter().map(|&(_, l)| head_word(l)).collect();
    let mut prev: Option<(u64, &[u8])> = None;
    for (i, (&(no, _), &w)) in lines.iter().zip(&heads).enumerate() {
        if let Some(w) = w {
            let e = words.entry(w).or_insert((0, false, i));
            e.0 += 1;
            // Two consecutive lines starting with it: rows, not block headers.
            if prev.is_some_and(|(p, pw)| p + 1 == no && pw == w) {
                e.1 = true;
            }
        }
        prev = w.map(|w| (no, w));
    }
    // Of words equally common (`commit` and `Author:`), the one met first starts the blocks.
    let (&word, _) = words
        .iter()
        .filter(|(_, (n, adjacent, _))| *n >= BLOCKS_MIN && !adjacent)
        .max_by_key(|(_, (n, _, first))| (*n, std::cmp::Reverse(*first)))?;
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| heads[i] == Some(word))
        .collect();
    // Complete blocks only: from one start to the line before the next, with no gap between.
    let mut blocks: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for pair in starts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b - a > BLOCK_LINES_MAX || lines[b].0 != lines[a].0 + (b - a) as u64 {
            continue;
        }
        // A long listing's blocks (`ls -lR`) differ by their names only.
        if lines[a..b].iter().any(|(_, l)| super::rank::is_listing(l)) {
            return None;
        }
        // Runs of one kind count once: a record with three indented lines is laid out as one
        // with two.
        let mut layout = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        for (&(_, l), &head) in lines[a..b].iter().zip(&heads[a..b]) {
            let kind = line_kind(l, head, word);
            if last.as_ref() != Some(&kind) {
                layout.extend(&kind);
                layout.push(b'\n');
                last = Some(kind);
            }
        }
        blocks.push((a, b - 1, layout));
    }
    if blocks.len() < BLOCKS_MIN {
        return None;
    }
    let mut layouts: HashMap<&[u8], usize> = HashMap::new();
    for (_, _, l) in &blocks {
        *layouts.entry(l.as_slice()).or_default() += 1;
    }
    let (&top, &top_n) = layouts
        .iter()
        .max_by_key(|(l, n)| (**n, std::cmp::Reverse(**l)))?;
    if top_n * 10 < blocks.len() * DOMINANT_TENTHS || !top[..top.len() - 1].contains(&b'\n') {
        return None;
    }
    // The dominant layout's length in lines, from its first block.
    let top_lines = blocks
        .iter()
        .find(|(_, _, l)| l.as_slice() == top)
        .map_or(0, |(a, b, _)| b - a + 1);
    let rare_max = (blocks.len() / RARE_SHARE).max(1);
    let (a, b, layout) = blocks
        .iter()
        .filter(|(_, _, l)| layouts[l.as_slice()] <= rare_max)
        .min_by_key(|(a, _, l)| (layouts[l.as_slice()], *a))?;
    Some(RareBlock {
        first: *a,
        last: *b,
        word: String::from_utf8_lossy(word).into_owned(),
        count: layouts[layout.as_slice()],
        blocks: blocks.len(),
        dominant: (top_n, top_lines),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<RareValue> {
        let lines: Vec<(u64, &[u8])> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.as_bytes()))
            .collect();
        rare_values(&lines)
    }

    #[test]
    fn a_rare_pair_value_is_named_with_its_field_and_the_dominant_value() {
        let text: String = (0..500)
            .map(|i| {
                let status = if i == 321 { 503 } else { 200 };
                format!(
                    "level=info path=/item/{i} status={status} dur={}ms\n",
                    i % 7
                )
            })
            .collect();
        let f = found(&text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].index, 321);
        assert_eq!(f[0].search, "status=503");
        assert_eq!(f[0].note(), "status: 503 in 1 of 500 records (200 in 499)");
        assert_eq!(f[0].sentence(), "1 of 500 records has status 503");
    }

    #[test]
    fn a_rare_word_in_a_column_is_named_by_its_header() {
        let mut text = String::from("NAME      READY   STATUS    RESTARTS   AGE\n");
        for i in 0..300 {
            let st = if i == 150 {
                "CrashLoopBackOff"
            } else {
                "Running"
            };
            text.push_str(&format!("web-{i:03}   1/1     {st}   0          5d\n"));
        }
        let f = found(&text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].index, 151);
        assert_eq!(
            f[0].note(),
            "STATUS: CrashLoopBackOff in 1 of 300 rows (Running in 299)"
        );
    }

    #[test]
    fn without_a_header_the_label_before_a_column_names_it() {
        let text: String = (0..241)
            .map(|i| {
                let st = if i == 116 { "DOWN" } else { "UP" };
                format!("{i}: veth{i}: <BROADCAST,MULTICAST> mtu 1500 state {st} mode DEFAULT\n")
            })
            .collect();
        let f = found(&text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].sentence(), "1 of 241 rows has state DOWN");
    }

    #[test]
    fn a_rare_code_in_a_column_of_codes_is_a_rare_value_and_a_measure_is_not() {
        // An access log: 200 in 9 of 10 requests, 304 in the rest, one 503; the sizes beside the
        // status are digits too but take too many values to compare.
        let text: String = (0..2000)
            .map(|i| {
                let (status, size) = match i {
                    1234 => (503, 0),
                    _ if i % 10 == 3 => (304, 0),
                    _ => (200, 200 + i * 7 % 800),
                };
                format!(
                    "10.0.0.{} - - [04/Mar/2025:08:{:02}:{:02} +0000] \"GET /api/v{} HTTP/1.1\" {status} {size} \"-\" \"client/2\"\n",
                    i % 250,
                    i / 60 % 60,
                    i % 60,
                    i % 3
                )
            })
            .collect();
        let f = found(&text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].index, 1234);
        assert_eq!(f[0].value, "503");
        assert_eq!(f[0].dominant, ("200".to_string(), 1799));
    }

    fn block(text: &str) -> Option<RareBlock> {
        let lines: Vec<(u64, &[u8])> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.as_bytes()))
            .collect();
        rare_block(&lines)
    }

    fn commit(i: usize, body: &[&str]) -> String {
        let mut c = format!(
            "commit {i:040x}\nAuthor: A{} <a@x>\nDate:   Tue Jan 28 00:47:{:02} 2025\n\n    subject {i}\n",
            i % 6,
            i % 60
        );
        for line in body {
            c.push_str(&format!("    \n    {line}\n"));
        }
        c.push('\n');
        c
    }

    #[test]
    fn the_one_block_laid_out_unlike_the_others_is_found_by_its_first_line() {
        let text: String = (0..400)
            .map(|i| {
                if i == 187 {
                    commit(i, &["Ranges are written first-last."])
                } else {
                    commit(i, &[])
                }
            })
            .collect();
        let b = block(&text).expect("a block that differs");
        assert_eq!(b.word, "commit");
        assert_eq!(b.first, 187 * 6);
        assert_eq!(b.last - b.first + 1, 8);
        assert_eq!((b.count, b.blocks, b.dominant), (1, 399, (398, 6)));
        assert_eq!(
            b.note(),
            "1 of 399 blocks starting \"commit\" is laid out unlike the others (8 lines; 398 have 6)"
        );
    }

    #[test]
    fn blocks_of_many_layouts_listings_and_one_line_records_give_none() {
        // A history where bodies are common: no layout dominates.
        let text: String = (0..400)
            .map(|i| match i % 3 {
                0 => commit(i, &[]),
                1 => commit(i, &["a body"]),
                _ => commit(i, &["a body", "and a trailer"]),
            })
            .collect();
        assert_eq!(block(&text), None);
        // An indented line more or less is the same layout (runs count once).
        let text: String = (0..400)
            .map(|i| {
                let mut c = commit(i, &[]);
                if i == 9 {
                    c = c.replace("    subject 9\n", "    subject 9\n    continued\n");
                }
                c
            })
            .collect();
        assert_eq!(block(&text), None);
        // `ls -lR`: one empty directory among many is a name, not a finding.
        let mut text = String::new();
        for d in 0..100 {
            text.push_str(&format!("./d{d}:\ntotal 8\n"));
            for f in 0..(if d == 50 { 0 } else { 3 }) {
                text.push_str(&format!("-rw-r--r-- 1 root root 5 Dec  1 10:00 f{f}\n"));
            }
            text.push('\n');
        }
        assert_eq!(block(&text), None);
        // Rows on consecutive lines are no blocks.
        let text: String = (0..300)
            .map(|i| format!("test t{i} ... {}\n", if i == 7 { "FAILED" } else { "ok" }))
            .collect();
        assert_eq!(block(&text), None);
    }

    #[test]
    fn names_numbers_listings_prose_and_even_columns_give_none() {
        // Names in the first and last columns, numbers, a listing's owners.
        let mut text = String::new();
        for i in 0..300 {
            let owner = if i == 7 { "alice" } else { "root" };
            text.push_str(&format!(
                "-rw-r--r-- 1 {owner} root {} 2026-12-01 f{i}\n",
                100 + i
            ));
        }
        for i in 0..300 {
            let verb = if i == 9 { "Finished" } else { "Compiling" };
            text.push_str(&format!("{verb} crate{i} v0.{}.0 (/src/c{i})\n", i % 3));
        }
        // No value dominates: a category, not an outlier.
        for i in 0..300 {
            let st = ["active", "inactive", "failed"][i % 3];
            text.push_str(&format!("svc{i} loaded {st} running Service {i}\n"));
        }
        // Prose.
        for i in 0..100 {
            text.push_str(&format!(
                "  the quick brown fox jumps over lazy dog number {i} again\n"
            ));
        }
        assert_eq!(found(&text), Vec::new());
    }

    #[test]
    fn a_quoted_or_long_value_is_not_compared() {
        let text: String = (0..200)
            .map(|i| {
                let m = if i == 5 { "\"disk full\"" } else { "\"ok\"" };
                format!("ts={i} level=info msg={m} worker=w1\n")
            })
            .collect();
        assert_eq!(found(&text), Vec::new());
    }
}
