//! `k6/html`'s parsed documents: a native class, `HtmlDoc`, holding one
//! parsed page (scraper's tree: html5ever and CSS selectors), whose
//! methods take and give lists of node numbers. The Selection and Element
//! API is JavaScript over it (`lib.fn.js` beside `modules/html/mod.rs`), each Selection
//! holding its document and its nodes' numbers.
//!
//! A document is freed when the last Selection or Element of it is: the
//! `HtmlDoc` object holds no JavaScript value (so it is in no cycle), and
//! QuickJS frees it, and its tree, with the last reference.
//!
//! What k6 (goquery) does, kept here: selections are in the order their
//! nodes were found, without repeats; an invalid selector matches nothing
//! (no error); cascadia's own pseudo-classes ([`Matcher`]); `html()` is
//! Go's `html.Render` of the first node's children (void elements as
//! `<br/>`, `"` and `'` as `&#34;` and `&#39;`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use ego_tree::iter::Edge;
use ego_tree::{NodeId, NodeRef};
use rquickjs::JsLifetime;
use rquickjs::class::Trace;
use scraper::{ElementRef, Html, Node, Selector};

/// One parsed page.
#[derive(Trace, JsLifetime)]
#[rquickjs::class(rename = "HtmlDoc", frozen)]
pub struct HtmlDoc {
    #[qjs(skip_trace)]
    doc: Html,
    /// The tree's node ids, in id order (so sorted: a node's number is its
    /// place here).
    #[qjs(skip_trace)]
    ids: Vec<NodeId>,
    /// The page's length.
    #[qjs(skip_trace)]
    len: usize,
}

// Documents alive (parsed and not yet freed), the most alive at once,
// and the bytes of page they were parsed from: for the tests that show
// documents are freed when a script drops them. Counted per thread: a
// run's VUs all live on the thread that called `run`, so one run's
// figures are not mixed with another's running beside it.
thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static LIVE_BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Parsed documents not yet freed (on this thread).
pub fn live_documents() -> usize {
    LIVE.get()
}

/// The bytes of page of the documents not yet freed (on this thread).
pub fn live_document_bytes() -> usize {
    LIVE_BYTES.get()
}

/// The most documents alive at once (on this thread) since the last
/// [`reset_peak`].
pub fn peak_documents() -> usize {
    PEAK.get()
}

pub fn reset_peak() {
    PEAK.set(LIVE.get());
}

impl Drop for HtmlDoc {
    fn drop(&mut self) {
        LIVE.set(LIVE.get() - 1);
        LIVE_BYTES.set(LIVE_BYTES.get() - self.len);
    }
}

thread_local! {
    /// Parsed selectors (`None`: invalid), as scripts use the same few
    /// again and again; emptied when it gets large.
    static SELECTORS: RefCell<HashMap<String, Option<Rc<Matcher>>>> = RefCell::new(HashMap::new());
}

fn selector(s: &str) -> Option<Rc<Matcher>> {
    SELECTORS.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(v) = c.get(s) {
            return v.clone();
        }
        if c.len() >= 512 {
            c.clear();
        }
        let v = Matcher::compile(s).map(Rc::new);
        c.insert(s.to_owned(), v.clone());
        v
    })
}

/// A selector as goquery (cascadia) reads it: CSS, plus cascadia's
/// `:checked`, `:disabled`, `:enabled`, `:link` and `:input` (written as
/// standard CSS), and `:contains("text")` / `:containsOwn("text")` (case
/// blind) at the end of a selector with no comma.
pub struct Matcher {
    /// The selector's comma-separated parts.
    parts: Vec<Part>,
}

struct Part {
    sel: Selector,
    /// `:contains` (lowercase), and whether of the element's own text.
    contains: Option<(String, bool)>,
}

/// cascadia's pseudo-classes that CSS has not (or has otherwise), as CSS.
const PSEUDO: [(&str, &str); 5] = [
    (
        "checked",
        ":is(input[checked][type=checkbox i], input[checked][type=radio i], \
         menuitem[checked][type=checkbox i], menuitem[checked][type=radio i], option[selected])",
    ),
    (
        "disabled",
        ":is(optgroup[disabled], menuitem[disabled], fieldset[disabled], \
         :is(button, input, select, textarea, option):is([disabled], fieldset[disabled] > :not(legend), \
         fieldset[disabled] > :not(legend) *, fieldset[disabled] > legend ~ legend *))",
    ),
    (
        "enabled",
        ":is(a[href], area[href], link[href], optgroup:not([disabled]), \
         menuitem:not([disabled]), fieldset:not([disabled]), \
         :is(button, input, select, textarea, option):not([disabled], fieldset[disabled] > :not(legend), \
         fieldset[disabled] > :not(legend) *, fieldset[disabled] > legend ~ legend *))",
    ),
    ("link", ":is(a, area, link)[href]"),
    ("input", ":is(input, select, textarea, button)"),
];

impl Matcher {
    fn compile(src: &str) -> Option<Matcher> {
        let parts = split(src)
            .into_iter()
            .map(Part::compile)
            .collect::<Option<Vec<Part>>>()?;
        Some(Matcher { parts })
    }

    fn matches(&self, e: &ElementRef<'_>) -> bool {
        self.parts.iter().any(|p| p.matches(e))
    }
}

/// `s` split at its top-level commas (not in quotes, brackets or
/// parentheses).
fn split(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

impl Part {
    fn compile(src: &str) -> Option<Part> {
        let mut s = src.trim().to_owned();
        let mut contains = None;
        let lower = s.to_ascii_lowercase();
        if let Some(at) = lower.rfind(":contains")
            && s.ends_with(')')
            && let Some(open) = s[at..].find('(').map(|o| at + o)
        {
            let name = &lower[at + 1..open];
            let own = match name {
                "contains" => false,
                "containsown" => true,
                _ => return None,
            };
            let arg = s[open + 1..s.len() - 1].trim();
            let arg = if arg.len() >= 2
                && (arg.starts_with('"') && arg.ends_with('"')
                    || arg.starts_with('\'') && arg.ends_with('\''))
            {
                &arg[1..arg.len() - 1]
            } else {
                arg
            };
            contains = Some((arg.to_lowercase(), own));
            s.truncate(at);
            if s.trim().is_empty() || s.ends_with([' ', '>', '+', '~']) {
                s.push('*');
            }
        }
        let sel = Selector::parse(&rewrite(&s)).ok()?;
        Some(Part { sel, contains })
    }

    fn matches(&self, e: &ElementRef<'_>) -> bool {
        if !self.sel.matches(e) {
            return false;
        }
        let Some((text, own)) = &self.contains else {
            return true;
        };
        let mut all = String::new();
        if *own {
            for c in e.children() {
                if let Node::Text(t) = c.value() {
                    all.push_str(t);
                }
            }
        } else {
            text_of(&mut all, **e);
        }
        all.to_lowercase().contains(text.as_str())
    }
}

/// `s` with cascadia's own pseudo-classes written as CSS (outside quotes
/// and brackets).
fn rewrite(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    let mut bracket = false;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => bracket = true,
            (None, ']') => bracket = false,
            (None, ':') if !bracket && !out.ends_with(':') => {
                let name: String = rest[1..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                let next = rest[1 + name.len()..].chars().next();
                if next != Some('(')
                    && let Some((_, css)) =
                        PSEUDO.iter().find(|(p, _)| p.eq_ignore_ascii_case(&name))
                {
                    out.push_str(css);
                    rest = &rest[1 + name.len()..];
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[len..];
    }
    out
}

/// HTML elements with no end tag (Go's `voidElements`).
const VOID: [&str; 15] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
];

/// Elements whose text children Go writes as they are.
const LITERAL: [&str; 8] = [
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
    "script",
    "style",
    "xmp",
];

/// Go's `html.EscapeString` (as `html.Render` escapes text and attributes).
fn escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

fn quoted(out: &mut String, s: &str) {
    let q = if s.contains('"') { '\'' } else { '"' };
    out.push(q);
    out.push_str(s);
    out.push(q);
}

/// Go's `html.Render` of one node and what is under it (walked without
/// recursion: a page may nest 512 deep).
fn render(out: &mut String, root: NodeRef<'_, Node>) {
    for edge in root.traverse() {
        match edge {
            Edge::Open(n) => open_tag(out, n),
            Edge::Close(n) => {
                if let Node::Element(e) = n.value()
                    && (!VOID.contains(&e.name()) || n.has_children())
                {
                    out.push_str("</");
                    out.push_str(e.name());
                    out.push('>');
                }
            }
        }
    }
}

/// A node's opening (all of a text, comment or doctype).
fn open_tag(out: &mut String, n: NodeRef<'_, Node>) {
    match n.value() {
        Node::Document | Node::Fragment | Node::ProcessingInstruction(_) => {}
        Node::Text(t) => {
            let literal = n
                .parent()
                .and_then(|p| p.value().as_element().map(|e| LITERAL.contains(&e.name())))
                .unwrap_or(false);
            if literal {
                out.push_str(t);
            } else {
                escape(out, t);
            }
        }
        Node::Comment(c) => {
            out.push_str("<!--");
            out.push_str(c);
            out.push_str("-->");
        }
        Node::Doctype(d) => {
            out.push_str("<!DOCTYPE ");
            out.push_str(d.name());
            if !d.public_id().is_empty() {
                out.push_str(" PUBLIC ");
                quoted(out, d.public_id());
                if !d.system_id().is_empty() {
                    out.push(' ');
                    quoted(out, d.system_id());
                }
            } else if !d.system_id().is_empty() {
                out.push_str(" SYSTEM ");
                quoted(out, d.system_id());
            }
            out.push('>');
        }
        Node::Element(e) => {
            let name = e.name();
            out.push('<');
            out.push_str(name);
            for (qn, v) in &e.attrs {
                out.push(' ');
                if let Some(p) = &qn.prefix {
                    out.push_str(p);
                    out.push(':');
                }
                out.push_str(&qn.local);
                out.push_str("=\"");
                escape(out, v);
                out.push('"');
            }
            if VOID.contains(&name) && !n.has_children() {
                out.push_str("/>");
                return;
            }
            out.push('>');
            if let Some(Node::Text(t)) = n.first_child().map(|c| c.value())
                && t.starts_with('\n')
                && matches!(name, "pre" | "listing" | "textarea")
            {
                out.push('\n');
            }
        }
    }
}

fn text_of(out: &mut String, n: NodeRef<'_, Node>) {
    for d in n.descendants() {
        if let Node::Text(t) = d.value() {
            out.push_str(t);
        }
    }
}

/// A list of node numbers without repeats, in the order they come.
struct Uniq {
    seen: Vec<bool>,
    out: Vec<u32>,
}

impl Uniq {
    fn new(n: usize) -> Uniq {
        Uniq {
            seen: vec![false; n],
            out: Vec::new(),
        }
    }
    fn push(&mut self, i: u32) {
        if let Some(s) = self.seen.get_mut(i as usize)
            && !*s
        {
            *s = true;
            self.out.push(i);
        }
    }
}

impl HtmlDoc {
    /// The page parsed; as Go's parser, refused (with its message) when
    /// elements nest more than 512 deep.
    pub fn parse(src: &str) -> Result<HtmlDoc, &'static str> {
        let doc = Html::parse_document(src);
        let (mut depth, mut deepest) = (0usize, 0usize);
        for edge in doc.tree.root().traverse() {
            match edge {
                Edge::Open(n) if n.value().is_element() => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Edge::Close(n) if n.value().is_element() => depth -= 1,
                _ => {}
            }
        }
        if deepest > 512 {
            return Err("html: open stack of elements exceeds 512 nodes");
        }
        let ids = doc.tree.nodes().map(|n| n.id()).collect();
        let live = LIVE.get() + 1;
        LIVE.set(live);
        PEAK.set(PEAK.get().max(live));
        LIVE_BYTES.set(LIVE_BYTES.get() + src.len());
        Ok(HtmlDoc {
            doc,
            ids,
            len: src.len(),
        })
    }

    fn node(&self, i: u32) -> Option<NodeRef<'_, Node>> {
        self.ids
            .get(i as usize)
            .and_then(|id| self.doc.tree.get(*id))
    }

    fn num(&self, n: NodeRef<'_, Node>) -> u32 {
        self.ids.binary_search(&n.id()).unwrap_or(0) as u32
    }

    fn nodes<'a>(&'a self, list: &'a [u32]) -> impl Iterator<Item = NodeRef<'a, Node>> + 'a {
        list.iter().filter_map(|i| self.node(*i))
    }

    fn uniq(&self) -> Uniq {
        Uniq::new(self.ids.len())
    }

    fn matches(n: NodeRef<'_, Node>, sel: Option<&Matcher>) -> bool {
        match (sel, ElementRef::wrap(n)) {
            (Some(s), Some(e)) => s.matches(&e),
            _ => false,
        }
    }

    /// Whether `a` is a proper ancestor of `b`.
    fn contains(a: NodeRef<'_, Node>, b: NodeRef<'_, Node>) -> bool {
        b.ancestors().any(|p| p.id() == a.id())
    }
}

#[rquickjs::methods]
impl HtmlDoc {
    /// The document node's number.
    pub fn root(&self) -> u32 {
        self.num(self.doc.tree.root())
    }

    /// Elements under the nodes matching `sel`.
    pub fn find(&self, list: Vec<u32>, sel: String) -> Vec<u32> {
        let Some(s) = selector(&sel) else {
            return Vec::new();
        };
        let mut u = self.uniq();
        for n in self.nodes(&list) {
            for d in n.descendants().skip(1) {
                if Self::matches(d, Some(&s)) {
                    u.push(self.num(d));
                }
            }
        }
        u.out
    }

    /// The nodes of `other` under a node of `list`.
    pub fn within(&self, list: Vec<u32>, other: Vec<u32>) -> Vec<u32> {
        let mut u = self.uniq();
        for b in self.nodes(&other) {
            if self.nodes(&list).any(|a| Self::contains(a, b)) {
                u.push(self.num(b));
            }
        }
        u.out
    }

    /// The nodes of `list` matching `sel` (`not`: those that do not).
    pub fn filter(&self, list: Vec<u32>, sel: String, not: bool) -> Vec<u32> {
        let s = selector(&sel);
        let mut u = self.uniq();
        for n in self.nodes(&list) {
            if Self::matches(n, s.as_deref()) != not {
                u.push(self.num(n));
            }
        }
        u.out
    }

    /// The nodes of `list` with a descendant matching `sel`, or (`sel`
    /// undefined) one in `other`.
    pub fn has(&self, list: Vec<u32>, sel: Option<String>, other: Vec<u32>) -> Vec<u32> {
        let s = sel.as_deref().and_then(selector);
        let mut u = self.uniq();
        for n in self.nodes(&list) {
            let yes = match (&sel, &s) {
                (Some(_), s) => n
                    .descendants()
                    .skip(1)
                    .any(|d| Self::matches(d, s.as_deref())),
                (None, _) => self.nodes(&other).any(|b| Self::contains(n, b)),
            };
            if yes {
                u.push(self.num(n));
            }
        }
        u.out
    }

    /// For each node, itself or its nearest ancestor matching `sel` (or,
    /// `sel` undefined, in `other`).
    pub fn closest(&self, list: Vec<u32>, sel: Option<String>, other: Vec<u32>) -> Vec<u32> {
        let s = sel.as_deref().and_then(selector);
        let mut u = self.uniq();
        for n in self.nodes(&list) {
            let mut cur = Some(n);
            while let Some(c) = cur {
                let hit = match &sel {
                    Some(_) => Self::matches(c, s.as_deref()),
                    None => other.contains(&self.num(c)),
                };
                if hit {
                    u.push(self.num(c));
                    break;
                }
                cur = c.parent();
            }
        }
        u.out
    }

    /// goquery's walks: `children`, `contents`, `parent`, `parents`,
    /// `next`, `nextAll`, `prev`, `prevAll`, `siblings` (elements only but
    /// for `contents`), kept when they match `sel` (if given).
    pub fn walk(&self, list: Vec<u32>, how: String, sel: Option<String>) -> Vec<u32> {
        let s = sel.as_deref().map(selector);
        let mut u = self.uniq();
        let take = |n: NodeRef<'_, Node>, u: &mut Uniq| {
            let ok = match &s {
                Some(s) => Self::matches(n, s.as_deref()),
                None => how == "contents" || n.value().is_element(),
            };
            if ok {
                u.push(self.num(n));
            }
        };
        for n in self.nodes(&list) {
            match how.as_str() {
                "children" | "contents" => n.children().for_each(|c| take(c, &mut u)),
                "parent" => {
                    if let Some(p) = n.parent() {
                        take(p, &mut u);
                    }
                }
                "parents" => n.ancestors().for_each(|p| take(p, &mut u)),
                // The DOM's raw links (any node), for Element.
                "parentNode" => {
                    if let Some(p) = n.parent() {
                        u.push(self.num(p));
                    }
                }
                "nextSibling" => {
                    if let Some(x) = n.next_sibling() {
                        u.push(self.num(x));
                    }
                }
                "prevSibling" => {
                    if let Some(x) = n.prev_sibling() {
                        u.push(self.num(x));
                    }
                }
                "next" => {
                    if let Some(x) = n.next_siblings().find(|x| x.value().is_element()) {
                        take(x, &mut u);
                    }
                }
                "prev" => {
                    if let Some(x) = n.prev_siblings().find(|x| x.value().is_element()) {
                        take(x, &mut u);
                    }
                }
                "nextAll" => n.next_siblings().for_each(|x| take(x, &mut u)),
                "prevAll" => n.prev_siblings().for_each(|x| take(x, &mut u)),
                "siblings" => {
                    if let Some(p) = n.parent() {
                        p.children()
                            .filter(|x| x.id() != n.id())
                            .for_each(|x| take(x, &mut u));
                    }
                }
                _ => {}
            }
        }
        u.out
    }

    /// The text of the nodes, all of it, in order.
    pub fn text(&self, list: Vec<u32>) -> String {
        let mut out = String::new();
        for n in self.nodes(&list) {
            text_of(&mut out, n);
        }
        out
    }

    /// The HTML of a node's children (Go's rendering).
    pub fn html(&self, i: u32) -> String {
        let mut out = String::new();
        if let Some(n) = self.node(i) {
            for c in n.children() {
                render(&mut out, c);
            }
        }
        out
    }

    /// An attribute of a node (undefined when it has none such).
    pub fn attr(&self, i: u32, name: String) -> Option<String> {
        let n = self.node(i)?;
        n.value()
            .as_element()?
            .attrs
            .iter()
            .find(|(q, _)| q.prefix.is_none() && &*q.local == name.as_str())
            .map(|(_, v)| v.to_string())
    }

    /// A node's attributes, as `[name, value, name, value, ...]`.
    pub fn attrs(&self, i: u32) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(e) = self.node(i).and_then(|n| n.value().as_element()) {
            for (k, v) in e.attrs() {
                out.push(k.to_owned());
                out.push(v.to_owned());
            }
        }
        out
    }

    /// goquery's `NodeName`: the tag, or `#text`, `#document`, ...
    pub fn name(&self, i: u32) -> String {
        match self.node(i).map(|n| n.value()) {
            Some(Node::Element(e)) => e.name().to_owned(),
            Some(Node::Text(_)) => "#text".into(),
            Some(Node::Comment(_)) => "#comment".into(),
            Some(Node::Document | Node::Fragment) => "#document".into(),
            Some(Node::Doctype(d)) => d.name().to_owned(),
            _ => String::new(),
        }
    }

    /// The DOM's node type (1 element, 3 text, 8 comment, 9 document,
    /// 10 doctype).
    #[qjs(rename = "nodeType")]
    pub fn node_type(&self, i: u32) -> u32 {
        match self.node(i).map(|n| n.value()) {
            Some(Node::Element(_)) => 1,
            Some(Node::Text(_)) => 3,
            Some(Node::Comment(_)) => 8,
            Some(Node::Document | Node::Fragment) => 9,
            Some(Node::Doctype(_)) => 10,
            _ => 0,
        }
    }

    /// An element's namespace as Go names it: `svg`, `math`, or "" (HTML).
    pub fn ns(&self, i: u32) -> &'static str {
        match self.node(i).and_then(|n| n.value().as_element()) {
            Some(e) if &*e.name.ns == "http://www.w3.org/2000/svg" => "svg",
            Some(e) if &*e.name.ns == "http://www.w3.org/1998/Math/MathML" => "math",
            _ => "",
        }
    }

    /// A text or comment node's data.
    pub fn data(&self, i: u32) -> Option<String> {
        match self.node(i).map(|n| n.value()) {
            Some(Node::Text(t)) => Some(t.to_string()),
            Some(Node::Comment(c)) => Some(c.to_string()),
            _ => None,
        }
    }
}
