//! TypeScript scripts and source maps, side by side with k6 v1.8.1: a
//! `.ts` script and its `.ts` modules run with their types stripped, and
//! the stack of an exception names the lines of the TypeScript; a
//! bundle's source map (inline or beside it) puts its positions back into
//! the sources it was built from.

use std::path::Path;
use std::process::{Output, Stdio};

use crate::side_by_side::Tool;

const USER_TS: &str = r#"interface User {
  name: string;
  id: number;
}

enum Role { Reader, Writer = 5 }

namespace Ids {
  export const first: number = 7;
}

class UserAccount implements User {
  id: number;
  constructor(public name: string, private role: Role) {
    this.id = Ids.first;
  }
  describe(): string {
    return `${this.name} ${Role[this.role]} ${this.role as number}`;
  }
}

export function newUser(name: string): User & { describe(): string } {
  return new UserAccount(name, Role.Writer);
}

export function fail(why: string): never {
  throw new Error("ooops " + why);
}
"#;

const MAIN_TS: &str = r#"import type { Options } from "k6/options";
import { newUser, fail } from "./user.ts";

export const options: Options = { iterations: 1 };

const pick = <T,>(xs: T[]): T => xs[0];

export default (): void => {
  const user = newUser(pick<string>(["John", "Jane"]));
  console.log(user.describe(), typeof global);
  fail(user.name!);
};
"#;

/// The script run by `tool` in `dir` with `args` (and `stdin`).
fn run(tool: &Tool, dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut c = tool.command();
    c.current_dir(dir).arg("-q").args(args);
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("run");
    if let Some(text) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child.wait_with_output().expect("wait")
}

/// Each `NAME:LINE` in `text` where NAME ends with `suffix`, in order
/// (the frames of a stack; columns and the path's form differ between
/// the tools).
fn lines_of(text: &str, suffix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let pat = format!("{suffix}:");
    for (i, _) in text.match_indices(&pat) {
        let start = text[..i].rfind(['/', '(', ' ']).map_or(0, |j| j + 1);
        let rest = &text[i + pat.len()..];
        let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !n.is_empty() {
            out.push(format!("{}{suffix}:{n}", &text[start..i]));
        }
    }
    out
}

#[test]
fn typescript_runs_and_its_stacks_name_the_typescript_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("user.ts"), USER_TS).unwrap();
    std::fs::write(dir.path().join("main.ts"), MAIN_TS).unwrap();
    for tool in
        crate::side_by_side::tools("typescript_runs_and_its_stacks_name_the_typescript_lines")
    {
        let o = run(&tool, dir.path(), &["main.ts"], None);
        let err = String::from_utf8_lossy(&o.stderr);
        let name = tool.name;
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert!(
            err.contains(r#"msg="John Writer 5 object" source=console"#),
            "{name}: {err}"
        );
        // The frames: fail in user.ts, the default function in main.ts.
        let frames: Vec<String> = err
            .lines()
            .filter(|l| l.contains("ooops"))
            .flat_map(|l| lines_of(l, ".ts"))
            .collect();
        assert_eq!(frames, ["user.ts:27", "main.ts:11"], "{name}: {err}");
    }
}

#[test]
fn typescript_from_standard_input_and_in_base_mode() {
    let dir = tempfile::tempdir().unwrap();
    let script = "let n: number = 2;\nexport default function (): void { console.log(n * 21, typeof global); }\n";
    for tool in crate::side_by_side::tools("typescript_from_standard_input_and_in_base_mode") {
        let name = tool.name;
        let o = run(&tool, dir.path(), &["-"], Some(script));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert!(err.contains(r#"msg="42 object""#), "{name}: {err}");
        std::fs::write(dir.path().join("s.ts"), script).unwrap();
        let o = run(
            &tool,
            dir.path(),
            &["--compatibility-mode=base", "s.ts"],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(r#"msg="42 undefined""#), "{name}: {err}");
        let o = run(
            &tool,
            dir.path(),
            &["--compatibility-mode=bogus", "s.ts"],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{name}");
        assert!(
            err.contains(r#"invalid compatibility mode \"bogus\""#)
                || err.contains(r#"invalid compatibility mode "bogus""#),
            "{name}: {err}"
        );
    }
}

#[test]
fn a_typescript_syntax_error_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.ts"), "let a = 1;\nlet x: = 1;\n").unwrap();
    for tool in crate::side_by_side::tools("a_typescript_syntax_error_names_its_line") {
        let name = tool.name;
        let o = run(&tool, dir.path(), &["bad.ts"], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(107), "{name}: {err}");
        let at = if name == "k6" {
            "bad.ts: Line 2:"
        } else {
            "bad.ts:2:8: SyntaxError"
        };
        assert!(err.contains(at), "{name}: {err}");
    }
}

/// Base64 VLQ, as source maps write their numbers.
fn vlq(v: i64, out: &mut String) {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut v = if v < 0 { ((-v) << 1) | 1 } else { v << 1 };
    loop {
        let mut d = v & 31;
        v >>= 5;
        if v > 0 {
            d |= 32;
        }
        out.push(B64[d as usize] as char);
        if v == 0 {
            break;
        }
    }
}

/// A map of one source: per generated line, its (column, source line,
/// source column) segments, all from 0.
fn map_json(source: &str, lines: &[&[(i64, i64, i64)]]) -> String {
    let (mut src_line, mut src_col) = (0, 0);
    let mut mappings = Vec::new();
    for segs in lines {
        let mut col = 0;
        let mut line = Vec::new();
        for &(c, l, sc) in *segs {
            let mut s = String::new();
            for v in [c - col, 0, l - src_line, sc - src_col] {
                vlq(v, &mut s);
            }
            (col, src_line, src_col) = (c, l, sc);
            line.push(s);
        }
        mappings.push(line.join(","));
    }
    format!(
        r#"{{"version":3,"sources":["{source}"],"names":[],"mappings":"{}"}}"#,
        mappings.join(";")
    )
}

/// A bundle as a build tool writes it, and its map: line 2 (`throw`) was
/// line 8 of the source, line 5 (`boom("x")`) was line 14.
const BUNDLE: &str = "\"use strict\";\nfunction boom(s) {\n  throw new Error(\"boom \" + s);\n}\nexport default function () {\n  boom(\"x\");\n}\n";

fn bundle_map(source: &str) -> String {
    map_json(
        source,
        &[
            &[],
            &[(0, 6, 0)],
            &[(2, 7, 2), (18, 7, 18)],
            &[(0, 8, 0)],
            &[(0, 11, 0)],
            &[(2, 13, 2)],
            &[(0, 14, 0)],
        ],
    )
}

#[test]
fn a_bundle_s_source_map_puts_its_positions_back() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dist")).unwrap();
    let inline = format!(
        "{BUNDLE}//# sourceMappingURL=data:application/json;base64,{}\n",
        base64::engine::general_purpose::STANDARD.encode(bundle_map("webpack:///./src/test.ts"))
    );
    std::fs::write(dir.path().join("dist/inline.js"), inline).unwrap();
    std::fs::write(
        dir.path().join("dist/beside.js"),
        format!("{BUNDLE}//# sourceMappingURL=beside.js.map\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("dist/beside.js.map"),
        bundle_map("../src/test.ts"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("dist/lost.js"),
        format!("{BUNDLE}//# sourceMappingURL=lost.js.map\n"),
    )
    .unwrap();
    for tool in crate::side_by_side::tools("a_bundle_s_source_map_puts_its_positions_back") {
        let name = tool.name;
        let stack = |file: &str| {
            let o = run(&tool, dir.path(), &[file], None);
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(o.status.code(), Some(0), "{name} {file}: {err}");
            err
        };
        let err = stack("dist/inline.js");
        assert_eq!(
            lines_of(&err, "test.ts"),
            ["test.ts:8", "test.ts:14"],
            "{name}: {err}"
        );
        assert!(err.contains("webpack:///./src/test.ts:8:"), "{name}: {err}");
        let err = stack("dist/beside.js");
        assert_eq!(lines_of(&err, "src/test.ts").len(), 2, "{name}: {err}");
        assert!(err.contains("src/test.ts:8:"), "{name}: {err}");
        assert!(!err.contains("dist/src"), "{name}: {err}");
        // A map that is not there: a warning, and the bundle's own lines.
        let err = stack("dist/lost.js");
        assert!(
            err.contains("Couldn't load source map for"),
            "{name}: {err}"
        );
        assert!(err.contains("lost.js:3:"), "{name}: {err}");
    }
}
