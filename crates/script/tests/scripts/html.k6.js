// k6/html side by side with k6 v1.8.1: each WANT value is what k6 v1.8.1
// printed (`console.log(JSON.stringify(got))`) for this same script; maps
// have their keys sorted (Go's are in random order), and thrown messages
// end before ' at ' (k6 adds the callback's file:line there).
import { parseHTML } from 'k6/html';
import htmlModule from 'k6/html';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const src = `<!DOCTYPE html><html><head><title>T &amp; x</title><script>var a = "<b>";</script></head>
<body><h1 id="top" class="a b" data-foo-bar="12" data-user-id="5" data-j='{"x":1}' data-f="1.50">Hello <b>world</b><br></h1>
<ul><li>one</li><li class="x">two</li><li>three &lt;3</li></ul>
<form id="f"><input name="u" value="me"><input type="checkbox" name="c" checked="checked"><input type="checkbox" name="c2">
<select name="s"><option value="1">A</option><option selected>B</option></select>
<select name="m" multiple><option value="x" selected>X</option><option value="y" selected>Y</option></select>
<textarea name="t">a &lt; b</textarea><input type="submit" name="go" value="Go"><button name="b">bb</button></form>
<p title='q"u&apos;o'>text<!-- c --></p><pre>
z</pre><img src="/i.png"></body></html>`;
const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
const got = {};
const put = (k, f) => {
  let v;
  try { v = f(); v = JSON.stringify(sorted(v)) + ' ' + typeof v; } catch (e) { v = 'threw ' + e.name + ': ' + String(e.message).split(' at ')[0]; }
  got[k] = v;
};
export default function () {
  const doc = parseHTML(src);
  put('default', () => typeof htmlModule.parseHTML);
  put('title', () => doc.find('title').text());
  put('h1 text', () => doc.find('h1').text());
  put('h1 html', () => doc.find('h1').html());
  put('p html', () => doc.find('body').find('p').html());
  put('ul html', () => doc.find('ul').html());
  put('body html', () => doc.find('body').html());
  put('attr', () => doc.find('h1').attr('class'));
  put('attr missing', () => doc.find('h1').attr('nope'));
  put('attr default', () => doc.find('h1').attr('nope', 'dflt'));
  put('empty attr', () => doc.find('nope').attr('class'));
  put('empty text', () => doc.find('nope').text());
  put('empty html', () => doc.find('nope').html());
  put('empty val', () => doc.find('nope').val());
  put('li text', () => doc.find('li').text());
  put('size', () => doc.find('li').size());
  put('first last eq', () => [doc.find('li').first().text(), doc.find('li').last().text(), doc.find('li').eq(1).text(), doc.find('li').eq(-1).text(), doc.find('li').eq(9).size()]);
  put('val', () => [doc.find('input[name=u]').val(), doc.find('input[name=c2]').val(), doc.find('select[name=s]').val(), doc.find('textarea').val(), doc.find('button').val(), doc.find('h1').val(), doc.find('option').eq(1).val()]);
  put('val multiple', () => doc.find('select[name=m]').val());
  put('serialize', () => doc.find('form').serialize());
  put('serializeArray', () => doc.find('form').serializeArray());
  put('serializeObject', () => doc.find('form').serializeObject());
  put('map', () => doc.find('li').map((i, s) => i + ':' + s.text()));
  put('map throws', () => doc.find('li').map((i, s) => { if (i === 0) throw new Error('x'); return s.text(); }));
  put('map empty', () => doc.find('nope').map(() => 1));
  put('each', () => { const seen = []; doc.find('li').each((i, e) => seen.push(i + ':' + e.nodeName() + ':' + e.textContent())); return seen; });
  put('each throws', () => doc.find('li').each(() => { throw new Error('boom'); }));
  put('each not fn', () => doc.find('li').each(42));
  put('filter', () => [doc.find('li').filter('.x').text(), doc.find('li').filter((i) => i !== 1).size(), doc.find('li').filter(doc.find('.x')).size()]);
  put('filter bad', () => doc.find('li').filter(42));
  put('is', () => [doc.find('li').is('.x'), doc.find('h1').is('.x'), doc.find('li').is((i, s) => s.text() === 'two')]);
  put('is bad', () => doc.find('li').is(42));
  put('walks', () => [doc.find('ul').children().size(), doc.find('ul').children('.x').text(), doc.find('li').parent().size(), doc.find('b').parent().attr('id'),
    doc.find('b').closest('body').size(), doc.find('li').first().next().text(), doc.find('li').last().prev().text(), doc.find('li').next().size(),
    doc.find('li').not('.x').size(), doc.find('body *').has('b').size(), doc.find('html').parent().size(), doc.find('ul').contents().size(),
    doc.find('li').siblings().size(), doc.find('li').eq(0).parents().size(), doc.find('li').eq(0).nextAll().size(), doc.find('li').last().prevAll('.x').size()]);
  put('slice', () => [doc.find('li').slice(1).text(), doc.find('li').slice(0, 2).text(), doc.find('li').slice(-1).text(), doc.find('li').slice(0, -1).text()]);
  put('data', () => [doc.find('h1').data('fooBar'), doc.find('h1').data('userId'), doc.find('h1').data('f'), doc.find('li').data('x')]);
  put('data all', () => doc.find('h1').data());
  put('get', () => [doc.find('li').get().length, doc.find('li').get(0).textContent(), doc.find('li').get(9), doc.find('nope').get()]);
  put('toArray', () => doc.find('li').toArray().map((s) => s.text()));
  put('element', () => { const e = doc.find('h1').get(0); return [e.nodeName(), e.nodeType(), e.getAttribute('id'), e.innerHTML(), String(e), e.id(), e.className(), e.classList(), e.hasAttribute('id'), e.firstChild().nodeValue(), String(e.firstChild()), e.parentElement().nodeName(), e.selection().find('b').text()]; });
  put('attributes', () => doc.find('h1').get(0).attributes());
  put('find selection', () => doc.find('body').find(doc.find('li')).size());
  put('invalid selector', () => [doc.find('[[[').size(), doc.find('li').is('[[['), doc.find('li').filter('[[[').size()]);
  put('find number', () => doc.find(42));
  put('find object', () => doc.find({}));
  put('parse non-strings', () => [parseHTML(42).text(), parseHTML().html(), parseHTML(null).html(), parseHTML({}).text()]);
  put('selectors', () => {
    const d = parseHTML(`<div id="m"><ul class="L"><li>a</li><li class="x y">b</li><li><a href="/q?z=1" rel="nofollow">Next <b>Page</b></a></li></ul>
<p>para <span>s1</span></p><p></p><input type="checkbox" checked name="cb"><input type="RADIO" checked name="r"><input disabled name="d"><select><option selected>o</option><option>p</option></select>
<fieldset disabled><legend><input name="inl"></legend><input name="inf"><button>b</button></fieldset><area href="#"><a>no</a>
<svg><circle r="1"></circle></svg><DIV CLASS="Up">UP</DIV></div>`);
    return ['li', 'ul > li', 'ul li:first-child', 'li:last-child', 'li:nth-child(2)', 'li:nth-of-type(odd)', 'li:not(.x)', 'li.x.y', '.X', '[class~=y]',
      'a[href^="/q"]', 'a[href$="=1"]', 'a[href*="?"]', '[rel=NOFOLLOW i]', 'p:empty', ':root', 'p span', 'p + p', 'ul ~ p', 'li:has(a)',
      'circle', 'svg circle', 'div.Up', 'div.up', 'DIV', '#m', '#M', 'li:first-of-type', 'li:only-child', '*', 'li, p', 'input[name]',
      'input:not([disabled])', 'li:eq(1)', ':first', 'input:checkbox', 'li:contains("b")', 'li:contains(B)', "a:contains('next page')",
      'a:containsOwn("page")', 'a:containsOwn("next")', ':checked', ':disabled', ':enabled', 'option:checked', 'input:not(:checked)',
      'a:link', ':link', ':input', 'input:disabled', 'button:enabled', 'input:enabled', ':CHECKED', 'li:contains("b"), p', '[data-x=":checked"]']
      .map((s) => s + ' ' + d.find(s).size());
  });
  put('end index', () => {
    const d = parseHTML('<div id="a">x<p>1</p>y<p class="c">2</p><!--k--><p>3</p></div><span>s</span>');
    return [d.find('p').filter('.c').end().size(), d.find('div').find('p').end().attr('id'), d.end().size(), d.find('p').eq(1).end().size(),
      d.find('p').index(), d.find('.c').index(), d.find('nope').index(), d.find('.c').index('p'), d.find('p').index(d.find('.c')),
      d.find('p').index(d.find('.c').get(0)), d.find('p').index(5)];
  });
  put('element nodes', () => {
    const d = parseHTML('<div id="a">x<p>1</p>y<p class="c">2</p><!--k--><p>3</p></div><span>s</span>');
    const p = d.find('.c').get(0);
    return [p.previousSibling().nodeName(), p.previousSibling().nodeValue(), p.nextSibling().nodeName(), p.nextSibling().nodeValue(),
      p.parentNode().nodeName(), d.find('html').get(0).parentNode().nodeName(), d.find('html').get(0).parentElement(),
      p.ownerDocument().nodeName(), p.ownerDocument().nodeType(), String(p.nextSibling()), p.nextSibling().nodeType(),
      d.find('div').get(0).childNodes().map((e) => e.nodeName()), d.find('div').get(0).children().length,
      d.find('div').get(0).querySelector('.c').textContent(), d.find('div').get(0).querySelectorAll('p').length, p.matches('p.c')];
  });
  put('tag methods', () => {
    const d = parseHTML(`<html><head><link rel="stylesheet" href="/s.css" media="all"><meta name="csrf" content="tok"><meta http-equiv="Refresh" content="5"><script src="app.js" async></script></head><body>
<a id="a1" href="/x/y?q=1#f" rel="nofollow" target="_blank">Link <b>one</b></a><a id="a2">no href</a><a id="a3" href="../up.html">up</a><a id="a4" href="https://other.example/p">abs</a>
<form id="f" action="post.php" method="POST" enctype="multipart/form-data"><input id="i1" name="u" type="Email" value="v" maxlength="x" size="12" required>
<input id="i2" type="checkbox" checked><button id="b1" type="reset">Go <i>x</i></button><button id="b2" value="bv">B</button>
<select id="s1" name="s" multiple><option id="o1" value="1" label="L">One</option><option id="o2" selected>Two</option></select><textarea id="t1" rows="3">tt</textarea></form>
<form id="f2"></form><img id="im" src="img/p.png" width="10" height="abc" alt="pic"></body></html>
`);
    const g = (id) => d.find('#' + id).get(0);
    const l = d.find('link').get(0), m = d.find('meta').get(0), m2 = d.find('meta').get(1), sc = d.find('script').get(0);
    return [['a1', 'a2', 'a3'].map((id) => [g(id).href(), g(id).rel(), g(id).target(), g(id).text(), g(id).toString(), g(id).type()]),
      ['f', 'f2'].map((id) => [g(id).action(), g(id).method(), g(id).enctype(), g(id).name(), g(id).noValidate(), g(id).autocomplete()]),
      ['i1', 'i2'].map((id) => [g(id).name(), g(id).type(), g(id).value(), g(id).checked(), g(id).required(), g(id).maxLength(), g(id).size(), g(id).tabIndex()]),
      ['b1', 'b2'].map((id) => [g(id).type(), g(id).value(), g(id).name(), g(id).disabled()]),
      [g('s1').type(), g('s1').value(), g('s1').multiple(), g('o1').value(), g('o1').label(), g('o1').text(), g('o2').value(), g('o2').selected()],
      [g('t1').type(), g('t1').value(), g('t1').rows(), g('im').src(), g('im').width(), g('im').height(), g('im').alt()],
      [l.href(), l.rel(), l.media(), m.content(), m.name(), m.httpEquiv(), m2.httpEquiv(), sc.src(), sc.async(), sc.defer()],
      [typeof d.find('body').get(0).href, typeof d.find('b').get(0).text]];
  });
  put('until', () => {
    const d = parseHTML('<div id="r"><ul><li id="a">a</li><li class="x" id="b">b</li><li id="c">c</li><li class="stop" id="d">d</li><li id="e" class="x">e</li></ul><ol><li id="f">f</li><li id="g">g</li></ol></div>');
    const ids = (s) => s.map((i, x) => x.get(0).nodeName() + '#' + x.attr('id'));
    return [ids(d.find('#a').nextUntil('.stop')), ids(d.find('#a').nextUntil()), ids(d.find('#a').nextUntil(null)),
      ids(d.find('#a').nextUntil('.stop', '.x')), ids(d.find('#a').nextUntil(null, '.x')), ids(d.find('#a').nextUntil(d.find('#c'))),
      ids(d.find('li').nextUntil('.stop')), ids(d.find('#e').prevUntil('#b')), ids(d.find('#e').prevUntil('#a', '.x')),
      ids(d.find('#g').parentsUntil('body')), ids(d.find('#g').parentsUntil()), ids(d.find('#a').nextUntil('.stop', undefined))];
  });
  put('until bad', () => parseHTML('<p>x</p>').find('p').nextUntil(42));
  put('element dom', () => {
    const d = parseHTML('<div lang="en" id="x" class="c"><p>a</p></div><div><p>a</p></div><svg><circle r="1"/></svg><math><mi>x</mi></math>');
    const e = d.find('div').get(0), a = e.getAttributeNode('class');
    return [e.getAttributeNode('id'), [a.name, a.value, a.prefix(), a.namespaceURI(), a.localName(), a.owner_element.nodeName()], e.getAttributeNode('nope'),
      [e.isEqualNode(d.find('div').get(1)), e.isEqualNode(d.find('p').get(0)), d.find('p').get(0).isEqualNode(d.find('p').get(1)), e.isEqualNode('x')],
      [e.lang(), d.find('p').get(0).lang()],
      [e.namespaceURI(), d.find('circle').get(0).namespaceURI(), d.find('mi').get(0).namespaceURI(), e.isDefaultNamespace(), d.find('svg').get(0).isDefaultNamespace()]];
  });
  put('deep', () => {
    const ok = parseHTML('<div>'.repeat(509) + 'x<br>');
    return [ok.find('div').size(), ok.find('body').html().length, ok.find('div').last().parents().size(), ok.text()];
  });
  put('too deep', () => parseHTML('<div>'.repeat(511) + 'x'));
  put('too deep tables', () => parseHTML('<table>' + '<tr><td><table>'.repeat(200)));
  put('json', () => JSON.stringify(doc.find('li')));
  put('doc html', () => parseHTML('<!DOCTYPE html><p title="a\'b&quot;c">x&amp;y\r</p><pre>\nz</pre><script>a<b</script>').html());
  check(null, Object.fromEntries(Object.keys(WANT).map((k) => [`${k}: ${got[k]}`, () => got[k] === WANT[k]])));
}
const WANT = {
  "default": "\"function\" string",
  "title": "\"T & x\" string",
  "h1 text": "\"Hello world\" string",
  "h1 html": "\"Hello <b>world</b><br/>\" string",
  "p html": "\"text<!-- c -->\" string",
  "ul html": "\"<li>one</li><li class=\\\"x\\\">two</li><li>three &lt;3</li>\" string",
  "body html": "\"<h1 id=\\\"top\\\" class=\\\"a b\\\" data-foo-bar=\\\"12\\\" data-user-id=\\\"5\\\" data-j=\\\"{&#34;x&#34;:1}\\\" data-f=\\\"1.50\\\">Hello <b>world</b><br/></h1>\\n<ul><li>one</li><li class=\\\"x\\\">two</li><li>three &lt;3</li></ul>\\n<form id=\\\"f\\\"><input name=\\\"u\\\" value=\\\"me\\\"/><input type=\\\"checkbox\\\" name=\\\"c\\\" checked=\\\"checked\\\"/><input type=\\\"checkbox\\\" name=\\\"c2\\\"/>\\n<select name=\\\"s\\\"><option value=\\\"1\\\">A</option><option selected=\\\"\\\">B</option></select>\\n<select name=\\\"m\\\" multiple=\\\"\\\"><option value=\\\"x\\\" selected=\\\"\\\">X</option><option value=\\\"y\\\" selected=\\\"\\\">Y</option></select>\\n<textarea name=\\\"t\\\">a &lt; b</textarea><input type=\\\"submit\\\" name=\\\"go\\\" value=\\\"Go\\\"/><button name=\\\"b\\\">bb</button></form>\\n<p title=\\\"q&#34;u&#39;o\\\">text<!-- c --></p><pre>z</pre><img src=\\\"/i.png\\\"/>\" string",
  "attr": "\"a b\" string",
  "attr missing": "undefined undefined",
  "attr default": "\"dflt\" string",
  "empty attr": "undefined undefined",
  "empty text": "\"\" string",
  "empty html": "\"\" string",
  "empty val": "undefined undefined",
  "li text": "\"onetwothree <3\" string",
  "size": "3 number",
  "first last eq": "[\"one\",\"three <3\",\"two\",\"three <3\",0] object",
  "val": "[\"me\",\"on\",\"B\",\"a &lt; b\",\"\",null,\"B\"] object",
  "val multiple": "[\"x\",\"y\"] object",
  "serialize": "\"c=on&m=x&m=y&s=B&t=a+%26lt%3B+b&u=me\" string",
  "serializeArray": "[{\"name\":\"u\",\"value\":\"me\"},{\"name\":\"c\",\"value\":\"on\"},{\"name\":\"s\",\"value\":\"B\"},{\"name\":\"m\",\"value\":[\"x\",\"y\"]},{\"name\":\"t\",\"value\":\"a &lt; b\"}] object",
  "serializeObject": "{\"c\":\"on\",\"m\":[\"x\",\"y\"],\"s\":\"B\",\"t\":\"a &lt; b\",\"u\":\"me\"} object",
  "map": "[\"0:one\",\"1:two\",\"2:three <3\"] object",
  "map throws": "[\"two\",\"three <3\"] object",
  "map empty": "[] object",
  "each": "[\"0:li:one\",\"1:li:two\",\"2:li:three <3\"] object",
  "each throws": "threw GoError: the function passed to each() failed: Error: boom",
  "each not fn": "threw GoError: the argument to each() must be a function",
  "filter": "[\"two\",2,1] object",
  "filter bad": "threw GoError: the argument to filter() must be a function, a selector or a selection",
  "is": "[true,false,true] object",
  "is bad": "threw GoError: the argument to is() must be a function, a selector or a selection",
  "walks": "[3,\"two\",1,\"top\",1,\"two\",\"two\",2,2,1,0,3,3,3,2,1] object",
  "slice": "[\"twothree <3\",\"onetwo\",\"three <3\",\"onetwo\"] object",
  "data": "[12,5,\"1.50\",null] object",
  "data all": "{\"f\":\"1.50\",\"fooBar\":12,\"j\":{\"x\":1},\"userID\":5} object",
  "get": "[3,\"one\",null,[]] object",
  "toArray": "[\"one\",\"two\",\"three <3\"] object",
  "element": "[\"h1\",1,\"top\",\"Hello <b>world</b><br/>\",\"[object html.Node]\",\"top\",\"a b\",[\"a\",\"b\"],true,\"Hello \",\"[object #text]\",\"body\",\"world\"] object",
  "attributes": "{\"class\":{\"name\":\"class\",\"owner_element\":{},\"value\":\"a b\"},\"data-f\":{\"name\":\"data-f\",\"owner_element\":{},\"value\":\"1.50\"},\"data-foo-bar\":{\"name\":\"data-foo-bar\",\"owner_element\":{},\"value\":\"12\"},\"data-j\":{\"name\":\"data-j\",\"owner_element\":{},\"value\":\"{\\\"x\\\":1}\"},\"data-user-id\":{\"name\":\"data-user-id\",\"owner_element\":{},\"value\":\"5\"},\"id\":{\"name\":\"id\",\"owner_element\":{},\"value\":\"top\"}} object",
  "find selection": "3 number",
  "invalid selector": "[0,false,0] object",
  "find number": "threw GoError: invalid argument, cannot use a 'int64' as a selector",
  "find object": "threw GoError: invalid argument, cannot use a 'map[string]interface {}' as a selector",
  "parse non-strings": "[\"42\",\"<html><head></head><body></body></html>\",\"<html><head></head><body></body></html>\",\"[object Object]\"] object",
  "selectors": "[\"li 3\",\"ul > li 3\",\"ul li:first-child 1\",\"li:last-child 1\",\"li:nth-child(2) 1\",\"li:nth-of-type(odd) 2\",\"li:not(.x) 2\",\"li.x.y 1\",\".X 0\",\"[class~=y] 1\",\"a[href^=\\\"/q\\\"] 1\",\"a[href$=\\\"=1\\\"] 1\",\"a[href*=\\\"?\\\"] 1\",\"[rel=NOFOLLOW i] 1\",\"p:empty 1\",\":root 1\",\"p span 1\",\"p + p 1\",\"ul ~ p 2\",\"li:has(a) 1\",\"circle 1\",\"svg circle 1\",\"div.Up 1\",\"div.up 0\",\"DIV 2\",\"#m 1\",\"#M 0\",\"li:first-of-type 1\",\"li:only-child 0\",\"* 29\",\"li, p 5\",\"input[name] 5\",\"input:not([disabled]) 4\",\"li:eq(1) 0\",\":first 0\",\"input:checkbox 0\",\"li:contains(\\\"b\\\") 1\",\"li:contains(B) 1\",\"a:contains('next page') 1\",\"a:containsOwn(\\\"page\\\") 0\",\"a:containsOwn(\\\"next\\\") 1\",\":checked 3\",\":disabled 4\",\":enabled 8\",\"option:checked 1\",\"input:not(:checked) 3\",\"a:link 1\",\":link 2\",\":input 7\",\"input:disabled 2\",\"button:enabled 0\",\"input:enabled 3\",\":CHECKED 3\",\"li:contains(\\\"b\\\"), p 3\",\"[data-x=\\\":checked\\\"] 0\"] object",
  "end index": "[3,\"a\",0,3,0,1,-1,1,1,1,-1] object",
  "element nodes": "[\"#text\",\"y\",\"#comment\",\"\",\"div\",\"#document\",null,\"#document\",9,\"[object #comment]\",8,[\"#text\",\"p\",\"#text\",\"p\",\"#comment\",\"p\"],3,\"2\",3,true] object",
  "tag methods": "[[[\"/x/y?q=1#f\",\"nofollow\",\"_blank\",\"Link one\",\"/x/y?q=1#f\",\"\"],[\"\",\"\",\"\",\"no href\",\"\",\"\"],[\"../up.html\",\"\",\"\",\"up\",\"../up.html\",\"\"]],[[\"post.php\",\"get\",\"multipart/form-data\",\"\",false,\"on\"],[\"\",\"get\",\"application/x-www-form-urlencoded\",\"\",false,\"on\"]],[[\"u\",\"text\",\"v\",false,true,-1,12,0],[\"\",\"checkbox\",\"\",true,false,-1,0,0]],[[\"reset\",\"Go <i>x</i>\",\"\",false],[\"submit\",\"bv\",\"\",false]],[\"select-multiple\",\"Two\",true,\"1\",\"L\",\"One\",\"Two\",true],[\"textarea\",\"\",3,\"img/p.png\",10,0,\"pic\"],[\"/s.css\",\"stylesheet\",\"all\",\"tok\",\"csrf\",\"content-type\",\"content-type\",\"app.js\",true,false],[\"undefined\",\"undefined\"]] object",
  "until": "[[\"li#b\",\"li#c\"],[\"li#b\",\"li#c\",\"li#d\",\"li#e\"],[\"li#b\",\"li#c\",\"li#d\",\"li#e\"],[\"li#b\"],[\"li#b\",\"li#e\"],[\"li#b\"],[\"li#b\",\"li#c\",\"li#e\",\"li#g\"],[\"li#d\",\"li#c\"],[\"li#b\"],[\"ol#undefined\",\"div#r\"],[\"ol#undefined\",\"div#r\",\"body#undefined\",\"html#undefined\"],[]] object",
  "until bad": "threw GoError: invalid argument, cannot use a 'int64' as a selector",
  "element dom": "[{\"owner_element\":{},\"name\":\"id\",\"value\":\"x\"},[\"class\",\"c\",\"\",\"http://www.w3.org/1999/xhtml\",\"class\",\"div\"],null,[true,false,true,false],[\"en\",null],[\"http://www.w3.org/1999/xhtml\",\"http://www.w3.org/2000/svg\",\"http://www.w3.org/1998/Math/MathML\",true,false]] object",
  "deep": "[509,5605,510,\"x\"] object",
  "too deep": "threw GoError: html: open stack of elements exceeds 512 nodes",
  "too deep tables": "threw GoError: html: open stack of elements exceeds 512 nodes",
  "json": "\"{\\\"url\\\":\\\"\\\"}\" string",
  "doc html": "\"<!DOCTYPE html><html><head></head><body><p title=\\\"a&#39;b&#34;c\\\">x&amp;y\\n</p><pre>z</pre><script>a<b</script></body></html>\" string",
};
