"""The XSS corpus: strings a user could type anywhere the site lets them.

Every payload, if the browser ever ran it, would do one of two things the browser test
watches for (tests/browser/test_xss.py):
- call the sentinel `__xss(n)` (a function the test puts on every page), or
- make a request for `/__xss__/n` on the live server (an image, a frame, a style, a link
  that would be followed), which the test records.

So a payload that executes, or that smuggles in a tag loading something, is caught even
when the Content-Security-Policy blocks the script itself (the test also fails on every
CSP violation: the policy is the second line of defence, never the first).

Each payload is one line (but one Markdown construct), without leading or trailing spaces
(forms strip them) and at most MAX_LENGTH characters: the test appends a two-character tag
naming the field it stored the payload in, and the shortest field (an NPC's interaction
name) takes 40.
`n` in a payload is its own number (index + 1), so a hit names the payload that ran.
"""

MAX_LENGTH = 38

PAYLOADS = [
    # Plain tags and event handlers
    "<script>__xss(1)</script>",
    "<img src=x onerror=__xss(2)>",
    "<img src=/__xss__/3>",
    "<svg onload=__xss(4)>",
    "<svg><script>__xss(5)</script></svg>",
    "<body onload=__xss(6)>",
    "<iframe src=/__xss__/7>",
    "<details open ontoggle=__xss(8)>",
    "<input autofocus onfocus=__xss(9)>",
    "<video><source onerror=__xss(10)>",
    "<audio src=x onerror=__xss(11)>",
    "<object data=/__xss__/12>",
    "<embed src=/__xss__/13>",
    "<link rel=stylesheet href=/__xss__/14>",
    "<p style=background:url(/__xss__/15)>",
    "<marquee onstart=__xss(16)>",
    # Breaking out of attributes and elements the value might land in
    '"><img src=/__xss__/17>',
    "'><svg onload=__xss(18)>",
    '" onmouseover="__xss(19)" x="',
    "' autofocus onfocus='__xss(20)",
    "</textarea><img src=/__xss__/21>",
    "</title><img src=/__xss__/22>",
    "</script><script>__xss(23)</script>",
    "</option></select><img src=/__xss__/24",
    "<!--<img src=/__xss__/25>-->",
    # javascript: and data: links, Markdown link and image tricks
    "[a](javascript:__xss(26))",
    "[a](JaVaScRiPt:__xss(27))",
    "[a](java&#x73;cript:__xss(28))",
    "[a](javascript&colon;__xss(29))",
    "![a](/__xss__/30)",
    '![a](x "onerror=__xss(31)")',
    "[a](data:text/html,<script>__xss(32)<)",
    "<a href=javascript:__xss(33)>a</a>",
    "[a]: javascript:__xss(34)\n\n[a]",
    "<javascript:__xss(35)>",
    # SVG and MathML
    "<svg><a href=javascript:__xss(36)>a",
    "<svg><animate onbegin=__xss(37)>",
    "<math><a href=javascript:__xss(38)>",
    "<svg><image href=/__xss__/39>",
    # Entities and encodings
    "&lt;img src=/__xss__/40&gt;",
    "&#60;script&#62;__xss(41)&#60;/script>",
    "\\u003cimg src=/__xss__/42\\u003e",
    "%3Cimg src=/__xss__/43%3E",
    # Unicode look-alikes and controls
    "＜script＞__xss(44)＜/script＞",
    "\u202e>tpircs/<__xss(45)>tpircs<",
    "<scr\u200bipt>__xss(46)</scr\u200bipt>",
    "<img/src=x/onerror=__xss(47)>",
    # Template and framework injections
    "{{ 7|add:'__xss(48)' }}",
    "{% now 'Y' %}__xss(49)",
    "<b hx-get=/__xss__/50 hx-trigger=load>",
    "<div hx-on:load=__xss(51)>",
]

# A payload that is a Markdown construct over two lines is only meaningful where Markdown
# is rendered; one-line fields get the one-line payloads.
ONE_LINE = [p for p in PAYLOADS if "\n" not in p]

assert len(PAYLOADS) >= 40
assert len(set(PAYLOADS)) == len(PAYLOADS)
assert all(len(p) <= MAX_LENGTH and p == p.strip() for p in PAYLOADS), [
    p for p in PAYLOADS if len(p) > MAX_LENGTH or p != p.strip()
]
assert all(f"__xss({n})" in p or f"/__xss__/{n}" in p for n, p in enumerate(PAYLOADS, 1))
