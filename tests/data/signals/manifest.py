import json, re, os
specs = [
 ("pylint","pylint",[1,2],[["E1120","No value for argument 'b'"]]),
 ("flake8","flake8",[1,2],[["F821","undefined name 'undefined_name'"]]),
 ("ruff-json","ruff",[5,6],[["Undefined name `undefined_name`"]]),
 ("ruff","ruff",[1],[["F821","Undefined name `undefined_name`"]]),
 ("mypy","mypy",[1],[["Incompatible types in assignment"]]),
 ("mypy-json","mypy",[5,7],[["Incompatible types in assignment"]]),
 ("pytest","pytest",[2],[["assert -1 == 0"]]),
 ("pytest-durations","pytest",[4,9],[["test_step[263]","call"]]),
 ("gcc","gcc",[1],[["error:","undeclared_total"]]),
 ("valgrind","valgrind",[2],[["Invalid read of size 4"]]),
 ("strace","strace",[3],[["/etc/app/confg.toml","ENOENT"]]),
 ("gdb","gdb",[2,9],[["#0","in walk","crash.c:3"],["SIGSEGV, Segmentation fault"]]),
 ("make-k","make",[1,3],[["unit0541.c","expected ‘;’ before ‘}’ token"],["[Makefile:4: unit0541.o] Error 1"]]),
 ("make-clean","make",["clean"],[]),
 ("cppcheck","cppcheck",[1],[["arrayIndexOutOfBounds"]]),
 ("configure","autoconf",[8],[["cannot find -lzstdcompat"],["error: libzstdcompat is required"]]),
 ("javac","javac",[1],[["error: incompatible types: String cannot be converted to int"]]),
 ("shellcheck","shellcheck",[1,2],[["SC2115"]]),
 ("tsc","tsc",[1,2],[["TS2322"]]),
 ("eslint-json","eslint",[5],[["'total' is not defined."]]),
 ("node-test","node",[2],[["not ok 42"]],),
 ("mocha-json","mocha",[5],[["Expected values to be strictly equal"]]),
 ("tidy","tidy",[1,10],[["<blink> is not approved by W3C"]]),
 ("yamllint","yamllint",[1],[["syntax error: expected ',' or ']'"]]),
 ("cargo-build","cargo",[1],[["error[E0308]: mismatched types"]]),
 ("cargo-test","cargo",[2],[["left: 5611"],["scales_1870","panicked at"]]),
 ("cargo-test-ok","cargo",["clean"],[]),
 ("sqlite","sqlite3",[2],[["no such table: usres"]]),
 ("perl","perl",[1],[["Can't locate object method \"render_totals\""]]),
 ("hyperfine","hyperfine",[4],[["Benchmark 161: sleep 0.2"]]),
 ("cprofile","python",[9,4],[["slow_dedupe"]]),
 ("cargo-json","cargo",[6,7],[["mismatched types","\"level\":\"error\""],["mismatched types","error"]]),
 ("npm-ls","npm",[6],[["missing: left-pad@^1.3.0"]]),
 ("ls-lar","ls",["clean"],[]),
 ("ls-big","ls",[4,10],[["3500000000","chunk1318.bin"]]),
 ("diff-rs","diff",[10],[["golden1377.out","differ"]]),
 ("cmp","cmp",[10],[["== expected/golden1377.out"]]),
 ("compileall","python",["clean"],[]),
 ("tar","tar",["clean"],[]),
 ("traceback","python",["ordinary"],[["KeyError: 'listen_addr'"]]),
 ("cprofile-head","python",[9],[["job.py:5(build_index)"]]),
 ("sqlite-json","sqlite3",[6],[["no such table: usres"]]),
 ("jq-ndjson","jq",[6],[["Cannot index string with string \"name\""]]),
 ("du-tree","du",["outlier"],[["45M","./pkg17/docs/recording.webm"]]),
 ("ip-link-json","ip",["rare-value"],[["\"operstate\":\"DOWN\""]]),
 ("pydoc","pydoc",["clean"],[]),
 ("man-page","man",["clean"],[]),
 ("git-log","git",["clean"],[]),
 ("find-tree","find",["clean"],[]),
 ("ip-addr-ndjson","ip",["rare-value"],[["\"operstate\":\"DOWN\""]]),
 ("ip-link-oneline","ip",["rare-value"],[["veth58b@veth58a:","state DOWN"]]),
 ("pydoc-unittest","pydoc",["clean"],[]),
 ("pydoc-logging","pydoc",["clean"],[]),
 ("man-bash","man",["clean"],[]),
 ("git-oneline","git",["clean"],[]),
]
make = open("make.sh").read()
cmds = dict(re.findall(r'^case_ (\S+) "(.*)"$', make, re.M))
old = {}
if os.path.exists("manifest.json"):
    old = json.load(open("manifest.json"))
cases = []
for name, tool, classes, decisive in specs:
    lines = open(f"cases/{name}.txt", encoding="utf-8", errors="replace").read().split("\n")
    dec = []
    for words in decisive:
        hits = [i for i, l in enumerate(lines) if all(w in l for w in words)]
        assert hits, (name, words)
        i = hits[0]
        d = {"line": i + 1, "words": words}
        if len(lines[i]) <= 400:
            d["text"] = lines[i]
        dec.append(d)
    cases.append({"name": name, "tool": tool, "command": cmds[name], "classes": classes, "decisive": dec})
out = {"about": "The signal corpus: real outputs, one per case under cases/, made by make.sh. A case is seen when, for one of its decisive entries, every word of it appears in one string of the envelope's preview or signals (a preview line, a signal's text, or for a JSON preview its compact text). Cases of class \"clean\" must report no signal. tests/signals.rs scores them; baseline is the least number of cases seen that the test accepts.",
       "baseline": old.get("baseline", {"seen": 0}), "cases": cases}
json.dump(out, open("manifest.json", "w"), indent=1, ensure_ascii=False)
open("manifest.json", "a").write("\n")
print(len(cases), len(set(c["tool"] for c in cases)))
