#!/usr/bin/env python3
"""Derives the expected user/assistant turns of every fixture transcript, written independently of
the TypeScript dialects (run once by hand; the test reads expected.json and never runs this).

Rules (the project's definition of a turn, restated):
  user turn       a typed prompt. Not: tool results, isMeta / compaction summaries / harness notices
                  (Claude Code), harness context (Codex user items that are not the typed input),
                  command output.
  assistant turn  one model reply: Claude Code lines sharing message.id; Codex items between two
                  user messages or tool outputs; one Pi assistant line; a run of cursor assistant lines.
  text            text blocks, each trimmed, empty ones dropped, joined by a blank line.
"""
import json, os, re, sys, hashlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'fixtures'))

def lines(path):
    with open(path, 'rb') as f:
        for i, raw in enumerate(f.read().split(b'\n'), 1):
            s = raw.decode('utf8', 'replace').rstrip('\r')
            if not s.strip():
                continue
            try:
                o = json.loads(s)
            except Exception:
                continue
            if isinstance(o, dict):
                yield i, o

def join(parts):
    out = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
    return '\n\n'.join(out)

# ---------------------------------------------------------------- Claude Code
OUTPUT_TAG = re.compile(r'^\s*<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>')
NOTICE = re.compile(r'^\s*(\[Request interrupted by user[^\]]*\]|<local-command-caveat>)')

def cc(path):
    sub = os.path.basename(path).startswith('agent-')
    turns = []          # dicts with first line, role, side, texts
    pending = {}        # reply key -> turn
    def close_all():
        pending.clear()
    for no, o in lines(path):
        t = o.get('type')
        if t not in ('user', 'assistant'):
            continue
        side = o.get('isSidechain') is True
        main = True if sub else not side
        m = o.get('message') if isinstance(o.get('message'), dict) else {}
        c = m.get('content')
        if t == 'assistant':
            key = m.get('id') or o.get('requestId') or o.get('uuid') or ('line-%d' % no)
            r = pending.get(key)
            if r is None:
                if main:
                    close_all()
                r = {'line': no, 'role': 'assistant', 'side': side, 'parts': []}
                pending[key] = r
                turns.append(r)
            if isinstance(c, str):
                r['parts'].append(c)
            elif isinstance(c, list):
                for b in c:
                    if isinstance(b, dict) and b.get('type') == 'text':
                        r['parts'].append(b.get('text'))
            continue
        blocks = [b for b in c if isinstance(b, dict)] if isinstance(c, list) else []
        if any(b.get('type') == 'tool_result' for b in blocks):
            continue
        text = c if isinstance(c, str) else '\n\n'.join(b.get('text', '') for b in blocks if b.get('type') == 'text')
        if main:
            close_all()
        if o.get('isMeta') is True or o.get('isCompactSummary') is True or NOTICE.match(text) or OUTPUT_TAG.match(text):
            continue
        turns.append({'line': no, 'role': 'user', 'side': side, 'parts': [text]})
    return turns

# ---------------------------------------------------------------- Codex
CONTEXT = re.compile(r'^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<permissions instructions>|<collaboration_mode>|<personality|<skills?[\s>_]|<user_shell_command>|<turn_aborted>|<subagent_notification>|<apps_instructions>)')
CALLS = {'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call'}
OUTPUTS = {'function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output', 'function_result'}

def codex(path):
    turns = []
    st = {'reply': None, 'outputs': False, 'calls': set(), 'window': [], 'saw_event': False, 'meta': False}

    def resolve():
        w = st['window']
        if not w:
            return
        st['window'] = []
        cands = [x for x in w if x['kind'] == 'cand']
        for ev in [x for x in w if x['kind'] == 'event']:
            free = [x for x in cands if 'pair' not in x]
            match = [x for x in free if x['text'].strip() == ev['text'].strip()]
            if match:
                c = match[0]
            else:
                near = sorted([x for x in free if abs(x['line'] - ev['line']) <= 3],
                              key=lambda x: (abs(x['line'] - ev['line']), 0 if x['line'] < ev['line'] else 1))
                c = near[0] if near else None
            if c is not None:
                c['pair'] = ev
                ev['drop'] = True
        for x in w:
            if x.get('drop') or x['kind'] == 'sys':
                continue
            if x['kind'] == 'event' or 'pair' in x or not st['saw_event']:
                turns.append({'line': x['line'], 'role': 'user', 'side': False, 'parts': [x['text']]})

    def close_reply():
        st['reply'] = None
        st['outputs'] = False
        st['calls'] = set()

    def reply(no):
        if st['reply'] is not None and not st['outputs']:
            return st['reply']
        close_reply()
        resolve()
        r = {'line': no, 'role': 'assistant', 'side': False, 'parts': []}
        turns.append(r)
        st['reply'] = r
        return r

    def msg_text(c):
        if isinstance(c, str):
            return c.strip()
        return join([b.get('text') for b in (c if isinstance(c, list) else [])
                     if isinstance(b, dict) and b.get('type') in ('input_text', 'output_text', 'text')])

    def item(no, p):
        t = p.get('type')
        if t == 'message':
            text = msg_text(p.get('content'))
            if p.get('role') == 'user':
                if CONTEXT.match(text):
                    sysitem(no)
                    return
                close_reply()
                st['window'].append({'kind': 'cand', 'line': no, 'text': text})
            elif p.get('role') == 'assistant':
                reply(no)['parts'].append(text)
            else:
                sysitem(no)
        elif t == 'reasoning':
            reply(no)
        elif t in CALLS:
            reply(no)
            cid = p.get('call_id') or p.get('id')
            if cid:
                st['calls'].add(cid)
        elif t in OUTPUTS:
            cid = p.get('call_id')
            if st['reply'] is not None and (cid in st['calls'] or (t == 'function_result')):
                st['outputs'] = True
                return
            close_reply()
            resolve()

    def sysitem(no):
        if st['window']:
            st['window'].append({'kind': 'sys', 'line': no, 'text': ''})

    for no, o in lines(path):
        t = o.get('type')
        p = o.get('payload')
        if isinstance(p, dict):
            if t == 'session_meta':
                st['meta'] = True
            elif t == 'response_item':
                item(no, p)
            elif t == 'event_msg' and p.get('type') == 'user_message':
                st['saw_event'] = True
                close_reply()
                st['window'].append({'kind': 'event', 'line': no, 'text': (p.get('message') or '') if isinstance(p.get('message'), str) else ''})
            elif t == 'event_msg' and p.get('type') == 'item_completed' and isinstance(p.get('item'), dict) and p['item'].get('type') == 'UserMessage':
                st['saw_event'] = True
                close_reply()
                st['window'].append({'kind': 'event', 'line': no, 'text': msg_text(p['item'].get('content'))})
            elif t == 'compacted':
                if isinstance(p.get('message'), str) and p['message'].strip():
                    sysitem(no)
            continue
        if t is None and isinstance(o.get('id'), str) and not st['meta'] and 'role' not in o:
            st['meta'] = True
            continue
        if isinstance(t, str) and (t in CALLS or t in OUTPUTS or t in ('message', 'reasoning')):
            item(no, o)
        elif isinstance(o.get('role'), str):
            q = dict(o)
            q['type'] = 'message'
            q['content'] = o.get('content', o.get('message'))
            item(no, q)
    resolve()
    return turns

# ---------------------------------------------------------------- Pi
def pi(path):
    turns = []
    for no, o in lines(path):
        if o.get('type') != 'message' or not isinstance(o.get('message'), dict):
            continue
        m = o['message']
        c = m.get('content')
        if m.get('role') == 'user':
            text = c if isinstance(c, str) else '\n\n'.join(b.get('text', '') for b in (c or []) if isinstance(b, dict) and b.get('type') == 'text' and b.get('text', '').strip())
            turns.append({'line': no, 'role': 'user', 'side': False, 'parts': [text]})
        elif m.get('role') == 'assistant':
            turns.append({'line': no, 'role': 'assistant', 'side': False,
                          'parts': [b.get('text') for b in (c or []) if isinstance(b, dict) and b.get('type') == 'text']})
    return turns

# ---------------------------------------------------------------- cursor
QUERY = re.compile(r'^\s*<user_query>\s*([\s\S]*?)\s*</user_query>\s*$')

def cursor(path):
    turns = []
    reply = None
    for no, o in lines(path):
        role = o.get('role', o.get('type'))
        c = o['message'].get('content') if isinstance(o.get('message'), dict) else o.get('content')
        blocks = [b for b in c if isinstance(b, dict)] if isinstance(c, list) else []
        if role == 'user':
            if any(b.get('type') == 'tool_result' for b in blocks):
                continue
            reply = None
            text = c if isinstance(c, str) else '\n\n'.join(b.get('text', '') for b in blocks if b.get('type') == 'text')
            m = QUERY.match(text)
            turns.append({'line': no, 'role': 'user', 'side': False, 'parts': [m.group(1) if m else text]})
        elif role == 'assistant':
            if reply is None:
                reply = {'line': no, 'role': 'assistant', 'side': False, 'parts': []}
                turns.append(reply)
            for b in blocks:
                if b.get('type') == 'text' and b.get('text', '').strip() != '[REDACTED]':
                    reply['parts'].append(b.get('text'))
    return turns

DIALECTS = {'claude': cc, 'codex': codex, 'pi': pi, 'cursor': cursor}

# ---------------------------------------------------------------- Gemini CLI (`derive.py more`)
# user turn       a `user` message (displayContent when given, else its content text); not one
#                 that holds only tool results (functionResponse parts, no text), nor the context
#                 Gemini CLI injects as a user message (text that is one <session_context> block)
# assistant turn  a `gemini` message (early builds: `model` with `parts`)
# .jsonl          messages in order; a repeated id replaces the earlier write in place; $set with
#                 `messages` replaces the list; $rewindTo drops that message and all after it.
def gemini_text(v):
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return '\n\n'.join(p['text'] for p in v if isinstance(p, dict) and isinstance(p.get('text'), str) and p['text'].strip())
    return ''

def gemini(path):
    if path.endswith('.json'):
        with open(path, encoding='utf8') as f:
            msgs = [m for m in json.load(f).get('messages', []) if isinstance(m, dict)]
    else:
        msgs = []
        for no, o in lines(path):
            if isinstance(o.get('$set'), dict):
                if isinstance(o['$set'].get('messages'), list):
                    msgs = [m for m in o['$set']['messages'] if isinstance(m, dict)]
            elif isinstance(o.get('$rewindTo'), str):
                ids = [m.get('id') for m in msgs]
                if o['$rewindTo'] in ids:
                    msgs = msgs[:ids.index(o['$rewindTo'])]
            elif isinstance(o.get('type'), str) and (isinstance(o.get('id'), str) or 'content' in o):
                ids = [m.get('id') for m in msgs]
                if isinstance(o.get('id'), str) and o['id'] in ids:
                    msgs[ids.index(o['id'])] = o
                else:
                    msgs.append(o)
    turns = []
    for i, m in enumerate(msgs):
        if m.get('type') == 'user':
            d = m.get('displayContent')
            text = d if isinstance(d, str) and d.strip() else gemini_text(m.get('content'))
            if not text.strip() or re.fullmatch(r'\s*<session_context>.*</session_context>\s*', text, re.S):
                continue
            turns.append({'line': i, 'role': 'user', 'side': False, 'parts': [text]})
        elif m.get('type') in ('gemini', 'model'):
            c = m.get('content') if 'content' in m else m.get('parts')
            turns.append({'line': i, 'role': 'assistant', 'side': False, 'parts': [gemini_text(c)]})
    return turns

# ---------------------------------------------------------------- Copilot Chat (`derive.py more`)
# .json           requests[]: message.text is the user turn; a non-empty response[] the assistant
#                 turn, its text the markdown `value` parts (no kind) and inline references (by
#                 file name) concatenated as one stream.
# chatSessions .jsonl  kind 0 snapshot / 1 set / 2 push (truncate to i first) / 3 delete, replayed.
# transcripts .jsonl   user.message and assistant.message events, one turn each.
def replay(entries):
    state = None
    for e in entries:
        kind, k = e.get('kind'), e.get('k') or []
        if kind == 0:
            state = e.get('v')
            continue
        if not k:
            if kind == 1:
                state = e.get('v')
            continue
        cur = state
        for key in k[:-1]:
            if isinstance(cur, list):
                cur = cur[key]
            else:
                if cur.get(key) is None:
                    cur[key] = {}
                cur = cur[key]
        last = k[-1]
        if kind == 1:
            cur[last] = e.get('v')
        elif kind == 2:
            a = cur.get(last) if isinstance(cur, dict) else cur[last]
            if not isinstance(a, list):
                a = []
                cur[last] = a
            if isinstance(e.get('i'), int):
                del a[e['i']:]
            a.extend(e.get('v') or [])
        elif kind == 3:
            if isinstance(cur, list):
                cur.pop(last)
            else:
                cur.pop(last, None)
    return state

def copilot_reply(response):
    s = ''
    for p in response:
        if not isinstance(p, dict):
            continue
        if p.get('kind') in (None, 'markdownContent') and isinstance(p.get('value'), str):
            s += p['value']
        elif p.get('kind') == 'inlineReference':
            if isinstance(p.get('name'), str):
                s += p['name']
            else:
                r = p.get('inlineReference') or {}
                u = r.get('uri') if isinstance(r.get('uri'), dict) else r
                s += (u.get('path') or '').split('/')[-1]
    return s

def copilot(path):
    turns = []
    if '/transcripts/' in path:
        for no, o in lines(path):
            d = o.get('data') if isinstance(o.get('data'), dict) else {}
            if o.get('type') == 'user.message':
                turns.append({'line': no, 'role': 'user', 'side': False, 'parts': [d.get('content') or '']})
            elif o.get('type') == 'assistant.message':
                turns.append({'line': no, 'role': 'assistant', 'side': False, 'parts': [d.get('content') or '']})
        return turns
    if path.endswith('.jsonl'):
        sess = replay([o for _, o in lines(path)])
    else:
        with open(path, encoding='utf8') as f:
            sess = json.load(f)
    for r in sess.get('requests', []):
        turns.append({'line': len(turns), 'role': 'user', 'side': False, 'parts': [(r.get('message') or {}).get('text') or '']})
        resp = [p for p in (r.get('response') or []) if isinstance(p, dict)]
        if resp:
            turns.append({'line': len(turns), 'role': 'assistant', 'side': False, 'parts': [copilot_reply(resp)]})
    return turns

MORE = {'gemini': gemini, 'copilot': copilot}

def main():
    # `derive.py` writes expected.json (the first four agents); `derive.py more` writes
    # expected_more.json (Gemini CLI, Copilot Chat: .json documents too).
    more = sys.argv[1:] == ['more']
    out = []
    for agent, fn in (MORE if more else DIALECTS).items():
        base = os.path.join(FIX, agent)
        for dirpath, _, names in os.walk(base):
            for n in sorted(names):
                if not (n.endswith('.jsonl') or (more and n.endswith('.json'))):
                    continue
                p = os.path.join(dirpath, n)
                turns = sorted(fn(p), key=lambda t: t['line'])
                out.append({
                    'fixture': os.path.relpath(p, FIX),
                    'user': sum(1 for t in turns if t['role'] == 'user'),
                    'assistant': sum(1 for t in turns if t['role'] == 'assistant'),
                    'turns': [{'role': t['role'], 'side': t['side'], 'text': join(t['parts'])} for t in turns],
                })
    out.sort(key=lambda x: x['fixture'])
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write('\n')

if __name__ == '__main__':
    main()
