//! `k6/experimental/fs` and `k6/experimental/csv`, side by side with k6
//! v1.8.1: the same script over the same files logs the same lines.

use loadlab_testkit::proc::BoundedOutput;
use std::process::Command;

const SCRIPT: &str = r#"
import { open, SeekMode } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';
const file = await open('h.txt');
const a = await open('d.csv');
const all = await csv.parse(a, { delimiter: ',' });
const rest = await csv.parse(await open('d.csv'), { skipFirstLine: true });
const objects = new csv.Parser(await open('d.csv'), { asObjects: true });
const lines = new csv.Parser(await open('d.csv'), { fromLine: 2, toLine: 3 });
const semi = await csv.parse(await open('semi.csv'), { delimiter: ';' });
let missing;
try { await open('nope.txt'); } catch (e) { missing = `${e}|${JSON.stringify(e)}`; }
export const options = { iterations: 1 };
export default async function () {
  console.log(`path=${file.path} missing=${missing} modes=${SeekMode.Start},${SeekMode.Current},${SeekMode.End}`);
  console.log(`stat=${JSON.stringify(await file.stat())}`);
  const buf = new Uint8Array(4);
  const out = [];
  for (;;) {
    const n = await file.read(buf);
    if (n == null) break;
    out.push(n + ':' + String.fromCharCode(...buf.subarray(0, n)));
  }
  console.log(out.join(' '));
  console.log(`seek=${await file.seek(6, SeekMode.Start)} ${await file.seek(-2, SeekMode.End)} ${await file.seek(1, SeekMode.Current)}`);
  console.log(`all=${JSON.stringify(all)} rest=${JSON.stringify(rest)} semi=${JSON.stringify(semi)}`);
  const o = await objects.next();
  console.log(`${o.done} ${o.value.name} ${o.value.age}`);
  console.log(JSON.stringify(await lines.next()), JSON.stringify(await lines.next()), JSON.stringify(await lines.next()));
  try { await open('h.txt'); } catch (e) { console.log(`in a VU: ${e}`); }
  console.log(`unmoved=${await a.read(new Uint8Array(100))}`);
}
"#;

fn console_lines(o: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["source"] == "console")
        .map(|v| v["msg"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn experimental_fs_and_csv_read_files_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("h.txt"), "hello world").unwrap();
    std::fs::write(
        dir.path().join("d.csv"),
        "name,age\nalice,30\nbob,40\n\"c, d\",50\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("semi.csv"), "a;\"b;\"\"q\"\"\"\r\nc;d\r\n").unwrap();
    std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
    let args = ["-q", "--log-format=json", "s.js"];
    let ours = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run"])
        .args(args)
        .output_bounded()
        .expect("run loadlab");
    let err = String::from_utf8_lossy(&ours.stderr);
    assert_eq!(ours.status.code(), Some(0), "{err}");
    let got = console_lines(&ours);
    let abs = dir.path().canonicalize().unwrap().display().to_string();
    assert_eq!(
        got[0],
        format!(
            "path={abs}/h.txt missing=NotFoundError: no such file or directory \"{abs}/nope.txt\"|\
             {{\"name\":\"NotFoundError\",\"message\":\"no such file or directory \\\"{abs}/nope.txt\\\"\"}} modes=0,1,2"
        ),
        "{err}"
    );
    assert_eq!(got[2], "4:hell 4:o wo 3:rld");
    assert_eq!(
        got[4],
        "all=[[\"name\",\"age\"],[\"alice\",\"30\"],[\"bob\",\"40\"],[\"c, d\",\"50\"]] \
         rest=[[\"alice\",\"30\"],[\"bob\",\"40\"],[\"c, d\",\"50\"]] semi=[[\"a\",\"b;\\\"q\\\"\"],[\"c\",\"d\"]]"
    );
    assert_eq!(got[5], "false alice 30");
    assert_eq!(
        got[7],
        "in a VU: ForbiddenError: open() failed; reason: opening a file is allowed only in the Init context"
    );
    assert_eq!(got.len(), 9, "{got:#?}");
    let Some(k6) = loadlab_testkit::k6::k6_or_skip("experimental_fs_and_csv_read_files_as_k6")
    else {
        return;
    };
    let theirs = loadlab_testkit::k6::run_command(&k6)
        .current_dir(dir.path())
        .args(args)
        .output_bounded()
        .expect("run k6");
    assert_eq!(theirs.status.code(), Some(0));
    assert_eq!(
        got,
        console_lines(&theirs),
        "k6 and loadlab log the same lines"
    );
}

/// The pre-v1 name `k6/experimental/websockets` is `k6/websockets`, with
/// k6's deprecation warning once (not once per VU).
#[test]
fn the_experimental_websockets_name_is_an_alias_with_k6s_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("w.js"),
        "import { WebSocket } from 'k6/experimental/websockets';\n\
         import ws from 'k6/experimental/websockets';\n\
         export const options = { vus: 2, iterations: 2 };\n\
         export default function () { console.log(typeof WebSocket, typeof ws.WebSocket); }\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "--log-format=raw", "w.js"])
        .output_bounded()
        .expect("run loadlab");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let warning = "k6/experimental/websockets is deprecated and will be removed in a future release. Please use k6/websockets instead.";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    assert_eq!(err.matches("function function").count(), 2, "{err}");
}
