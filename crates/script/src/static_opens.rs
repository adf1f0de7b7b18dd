//! What a script names before it runs: the modules it imports and the
//! files it `open()`s, found by tokenizing its code (comments, string,
//! template and regular expression literals are told apart from code, so
//! `// open('/etc/shadow')` names nothing), and a compile-only check of
//! its syntax. `loadlab k8s render -- k6 run` packs what these name into a
//! ConfigMap and refuses a script that would not compile, before any pod
//! starts.

use crate::ScriptError;

/// What a reference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')`.
    Import,
    /// A call of the global `open(…)`.
    Open,
}

/// One reference in a script's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticRef {
    pub kind: RefKind,
    /// The literal argument; `None` when it is computed (a variable, an
    /// expression, a template literal with `${…}`).
    pub path: Option<String>,
    /// Where it is (1-based): the word `open`, or an import's module name.
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(u8),
    /// A string literal, or a template literal without `${…}`: its value.
    Str(String),
    /// Anything else that is a value: a number, a regular expression, a
    /// template literal with `${…}`.
    Value,
}

/// Keywords after which a `/` starts a regular expression, not a division.
const BEFORE_REGEX: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    /// Brace depths at which an open `${` of a template literal began.
    templates: Vec<usize>,
    depth: usize,
    /// Byte offsets of line starts, for positions.
    toks: Vec<(Tok, usize)>,
}

impl Lexer<'_> {
    /// Whether a `/` here starts a regular expression (by the token before).
    fn regex_allowed(&self) -> bool {
        match self.toks.last() {
            None => true,
            Some((Tok::Punct(p), _)) => !matches!(p, b')' | b']' | b'}'),
            Some((Tok::Ident(w), _)) => BEFORE_REGEX.contains(&w.as_str()),
            Some((Tok::Str(_) | Tok::Value, _)) => false,
        }
    }

    /// A quoted string from its opening quote: its value (escapes read)
    /// and the offset after it.
    fn string(&mut self, q: u8) -> String {
        let b = self.b;
        let mut v = Vec::new();
        self.i += 1;
        while self.i < b.len() && b[self.i] != q && b[self.i] != b'\n' {
            if b[self.i] == b'\\' && self.i + 1 < b.len() {
                let e = b[self.i + 1];
                v.push(match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'0' => 0,
                    other => other,
                });
                self.i += 2;
                continue;
            }
            v.push(b[self.i]);
            self.i += 1;
        }
        self.i += 1;
        String::from_utf8_lossy(&v).into_owned()
    }

    /// Template text from `self.i` to its closing backtick (then `Some`
    /// of the text when `whole`) or its next `${`.
    fn template_text(&mut self, start: usize, whole: bool) {
        let b = self.b;
        let text_from = self.i;
        while self.i < b.len() {
            match b[self.i] {
                b'\\' => self.i += 2,
                b'`' => {
                    let text = String::from_utf8_lossy(&b[text_from..self.i]).into_owned();
                    self.i += 1;
                    let tok = if whole { Tok::Str(text) } else { Tok::Value };
                    self.toks.push((tok, start));
                    return;
                }
                b'$' if b.get(self.i + 1) == Some(&b'{') => {
                    self.i += 2;
                    // The template is a computed value; its `${…}` is code.
                    self.toks.push((Tok::Value, start));
                    self.templates.push(self.depth);
                    self.depth += 1;
                    self.toks.push((Tok::Punct(b'('), self.i - 1));
                    return;
                }
                _ => self.i += 1,
            }
        }
        self.toks.push((Tok::Value, start));
    }

    /// A regular expression literal from its `/`: to the closing `/`
    /// outside a class, then its flags.
    fn regex(&mut self) {
        let b = self.b;
        self.i += 1;
        let mut class = false;
        while self.i < b.len() && b[self.i] != b'\n' {
            match b[self.i] {
                b'\\' => self.i += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => break,
                _ => {}
            }
            self.i += 1;
        }
        self.i += 1;
        while self.i < b.len() && is_ident(b[self.i]) {
            self.i += 1;
        }
    }

    fn run(mut self) -> Vec<(Tok, usize)> {
        let b = self.b;
        while self.i < b.len() {
            let c = b[self.i];
            let start = self.i;
            match c {
                b'/' if b.get(self.i + 1) == Some(&b'/') => {
                    while self.i < b.len() && b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if b.get(self.i + 1) == Some(&b'*') => {
                    self.i = b[self.i + 2..]
                        .windows(2)
                        .position(|w| w == b"*/")
                        .map_or(b.len(), |e| self.i + 2 + e + 2);
                }
                b'/' if self.regex_allowed() => {
                    self.regex();
                    self.toks.push((Tok::Value, start));
                }
                b'\'' | b'"' => {
                    let v = self.string(c);
                    self.toks.push((Tok::Str(v), start));
                }
                b'`' => {
                    self.i += 1;
                    self.template_text(start, true);
                }
                b'{' => {
                    self.depth += 1;
                    self.i += 1;
                    self.toks.push((Tok::Punct(c), start));
                }
                b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.i += 1;
                    if self.templates.last() == Some(&self.depth) {
                        self.templates.pop();
                        self.toks.push((Tok::Punct(b')'), start));
                        self.template_text(start, false);
                        // The template's value already stands before its
                        // `${`: what follows is not another value.
                        if let Some((Tok::Value, _)) = self.toks.last() {
                            self.toks.pop();
                        }
                    } else {
                        self.toks.push((Tok::Punct(c), start));
                    }
                }
                c if c.is_ascii_digit() => {
                    while self.i < b.len() && (is_ident(b[self.i]) || b[self.i] == b'.') {
                        self.i += 1;
                    }
                    self.toks.push((Tok::Value, start));
                }
                c if is_ident_start(c) => {
                    while self.i < b.len() && is_ident(b[self.i]) {
                        self.i += 1;
                    }
                    let w = String::from_utf8_lossy(&b[start..self.i]).into_owned();
                    self.toks.push((Tok::Ident(w), start));
                }
                c if c.is_ascii_whitespace() => self.i += 1,
                _ => {
                    self.i += 1;
                    self.toks.push((Tok::Punct(c), start));
                }
            }
        }
        self.toks
    }
}

/// The script's imports and `open()` calls, in code only, in order.
pub fn references(source: &str) -> Vec<StaticRef> {
    let toks = Lexer {
        b: source.as_bytes(),
        i: 0,
        templates: Vec::new(),
        depth: 0,
        toks: Vec::new(),
    }
    .run();
    let at = |offset: usize| {
        let before = &source[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before[before.rfind('\n').map_or(0, |n| n + 1)..]
            .chars()
            .count()
            + 1;
        (line, col)
    };
    let mut out = Vec::new();
    for (k, (tok, offset)) in toks.iter().enumerate() {
        let Tok::Ident(w) = tok else { continue };
        // `x.open(…)`, `x.import`: members, not the global.
        let member = k > 0 && toks[k - 1].0 == Tok::Punct(b'.');
        let declared = k > 0 && toks[k - 1].0 == Tok::Ident("function".into());
        if member || declared {
            continue;
        }
        let next = toks.get(k + 1).map(|t| &t.0);
        let after_paren = || match (next, toks.get(k + 2).map(|t| &t.0)) {
            (Some(Tok::Punct(b'(')), Some(Tok::Str(s))) => {
                let closes = matches!(toks.get(k + 3).map(|t| &t.0), Some(Tok::Punct(b')' | b',')));
                Some(closes.then(|| s.clone()))
            }
            (Some(Tok::Punct(b'(')), _) => Some(None),
            _ => None,
        };
        let found = match w.as_str() {
            "open" => after_paren().map(|path| (RefKind::Open, path, *offset)),
            "import" | "from" => match next {
                Some(Tok::Str(s)) => Some((RefKind::Import, Some(s.clone()), toks[k + 1].1)),
                _ if w == "import" => after_paren()
                    .flatten()
                    .map(|p| (RefKind::Import, Some(p), toks[k + 2].1)),
                _ => None,
            },
            _ => None,
        };
        if let Some((kind, path, offset)) = found {
            let (line, column) = at(offset);
            out.push(StaticRef {
                kind,
                path,
                line,
                column,
            });
        }
    }
    out
}

/// Compiles `source` as an ES module, as `loadlab k6 run` does, without
/// running it: a syntax error is `ScriptError::Syntax("FILE:LINE:COL:
/// SyntaxError: …")`. Its imports are not read (QuickJS asks for them
/// while compiling; each is answered with an empty module): check each
/// local module with its own call.
pub fn check_syntax(source: &str, file: &str) -> Result<(), ScriptError> {
    let runtime = |e: rquickjs::Error| ScriptError::Runtime(e.to_string());
    let rt = rquickjs::Runtime::new().map_err(runtime)?;
    rt.set_loader(AnyName, AnyName);
    let context = rquickjs::Context::full(&rt).map_err(runtime)?;
    let source = crate::js::source::prepare(source.to_string(), file)?;
    context.with(|ctx| {
        rquickjs::Module::declare(ctx.clone(), file, source)
            .map(|_| ())
            .map_err(|e| crate::js::error::syntax_text(&ctx, e, file))
    })
}

/// Resolves every import to its own name and loads it as an empty module
/// (a module's own syntax is checked, not what it imports).
pub(crate) struct AnyName;

impl rquickjs::loader::Resolver for AnyName {
    fn resolve<'js>(
        &mut self,
        _ctx: &rquickjs::Ctx<'js>,
        _base: &str,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        Ok(name.to_string())
    }
}

impl rquickjs::loader::Loader for AnyName {
    fn load<'js>(
        &mut self,
        ctx: &rquickjs::Ctx<'js>,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<rquickjs::Module<'js, rquickjs::module::Declared>> {
        rquickjs::Module::declare(ctx.clone(), name, "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opens(src: &str) -> Vec<(Option<String>, usize, usize)> {
        references(src)
            .into_iter()
            .filter(|r| r.kind == RefKind::Open)
            .map(|r| (r.path, r.line, r.column))
            .collect()
    }

    #[test]
    fn only_calls_in_code_count() {
        let src = "// open('/etc/shadow')\n/* open('a') */ const s = \"open('b')\";\nconst t = `open('c') ${open('d.txt')}`;\nconst r = /open('e')/g; const x = 1 / 2 / open('f.csv');\nconst y = f.open('g'); function open2() {}\nconst z = open(`h.bin`, 'b'); const w = open(name);\n";
        assert_eq!(
            opens(src),
            vec![
                (Some("d.txt".into()), 3, 24),
                (Some("f.csv".into()), 4, 43),
                (Some("h.bin".into()), 6, 11),
                (None, 6, 41),
            ]
        );
    }

    #[test]
    fn imports_in_their_forms() {
        let src = "import http from 'k6/http';\nimport './side.js';\nexport { a } from \"./lib/a.js\";\n// import x from './no.js'\nconst m = import('./dyn.js');\nconst s = 'import y from \"./no2.js\"';\n";
        let got: Vec<String> = references(src)
            .into_iter()
            .filter(|r| r.kind == RefKind::Import)
            .filter_map(|r| r.path)
            .collect();
        assert_eq!(got, ["k6/http", "./side.js", "./lib/a.js", "./dyn.js"]);
    }

    #[test]
    fn syntax_errors_name_the_place() {
        let ok = check_syntax(
            "import x from './x.js';\nimport { y } from 'k6/nothing';\nexport default function () {}\n",
            "a.js",
        );
        assert!(ok.is_ok(), "{ok:?}");
        let e =
            check_syntax("export default function () {\n  let = ;\n}\n", "dir/a.js").unwrap_err();
        let ScriptError::Syntax(m) = e else {
            panic!("{e:?}")
        };
        assert!(m.starts_with("dir/a.js:2:"), "{m}");
        assert!(m.contains("SyntaxError"), "{m}");
    }
}
