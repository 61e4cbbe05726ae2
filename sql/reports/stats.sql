-- brain stats: sessions, turns, tokens, models and tool calls per group.
-- $by: 'agent' | 'day' | 'project' | 'machine' | 'all'; $agent: '' or agent names (the agent
-- column's, comma-separated); $since: '' or a time (rows at or after it).
-- A session counts in every group it has messages in (a session over two days counts in both),
-- once however many files hold it (an agent writing a file per event, a copy of a rollout);
-- a turn is a user prompt or one assistant reply (the lines of one reply count once) of a main
-- conversation: sub-agents' messages (is_sidechain) are not sessions or turns of their own, but
-- their tokens count; tokens count each reply once (derived.usage); days are in the connection's
-- time zone.
-- The total over every group comes out of the same pass (GROUPING SETS with the empty set), as
-- the row whose key is chr(0), which no group's key can be: the views under it (derived.usage and
-- derived.calls deduplicate across files with windows) are worked out once, not once per query.
WITH
  m AS (
    SELECT CASE $by WHEN 'agent' THEN agent
                    WHEN 'day' THEN coalesce(strftime(coalesce(event_time, captured_at), '%Y-%m-%d'), '(no time)')
                    WHEN 'project' THEN coalesce(project, '(unknown)')
                    WHEN 'machine' THEN machine_id
                    ELSE 'total' END AS key,
           machine_id, agent, session_id, turn_id, model
    FROM derived.messages
    WHERE NOT is_sidechain
      AND ($agent = '' OR list_contains(string_split($agent, ','), agent))
      AND ($since = '' OR coalesce(event_time, captured_at) >= TRY_CAST($since AS TIMESTAMPTZ))),
  ms AS (
    SELECT coalesce(key, chr(0)) AS key, count(DISTINCT concat_ws(chr(0), machine_id, agent, session_id)) AS sessions,
           count(DISTINCT turn_id) AS turns
    FROM m GROUP BY GROUPING SETS ((key), ())),
  u AS (
    SELECT CASE $by WHEN 'agent' THEN agent
                    WHEN 'day' THEN coalesce(strftime(event_time, '%Y-%m-%d'), '(no time)')
                    WHEN 'project' THEN coalesce(project, '(unknown)')
                    WHEN 'machine' THEN machine_id
                    ELSE 'total' END AS key,
           input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, model
    FROM derived.usage
    WHERE ($agent = '' OR list_contains(string_split($agent, ','), agent))
      AND ($since = '' OR event_time >= TRY_CAST($since AS TIMESTAMPTZ))),
  us AS (
    SELECT coalesce(key, chr(0)) AS key, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_creation_tokens) AS cache_creation_tokens, sum(cache_read_tokens) AS cache_read_tokens,
           count(*) AS replies
    FROM u GROUP BY GROUPING SETS ((key), ())),
  mods AS (
    SELECT coalesce(key, chr(0)) AS key, list(DISTINCT model ORDER BY model) AS models
    FROM (SELECT key, model FROM u UNION ALL SELECT key, model FROM m)
    WHERE model IS NOT NULL AND model <> '' AND model <> '<synthetic>'
    GROUP BY GROUPING SETS ((key), ())),
  c AS (
    SELECT CASE $by WHEN 'agent' THEN agent
                    WHEN 'day' THEN coalesce(strftime(event_time, '%Y-%m-%d'), '(no time)')
                    WHEN 'project' THEN coalesce(project, '(unknown)')
                    WHEN 'machine' THEN machine_id
                    ELSE 'total' END AS key,
           tool_name, is_error
    FROM derived.calls
    WHERE ($agent = '' OR list_contains(string_split($agent, ','), agent))
      AND ($since = '' OR event_time >= TRY_CAST($since AS TIMESTAMPTZ))),
  cs AS (
    SELECT coalesce(key, chr(0)) AS key, count(*) AS tool_calls, count(*) FILTER (WHERE is_error) AS tool_failures
    FROM c GROUP BY GROUPING SETS ((key), ())),
  ct AS (
    SELECT key, list({'tool': tool_name, 'calls': n} ORDER BY n DESC, tool_name)[1:5] AS top_tools
    FROM (SELECT coalesce(key, chr(0)) AS key, tool_name, count(*) AS n
          FROM (SELECT key, coalesce(tool_name, '(unnamed)') AS tool_name FROM c)
          GROUP BY GROUPING SETS ((key, tool_name), (tool_name)))
    GROUP BY key),
  keys AS (SELECT key FROM ms UNION SELECT key FROM us UNION SELECT key FROM cs)
SELECT keys.key,
       coalesce(ms.sessions, 0) AS sessions,
       coalesce(ms.turns, 0) AS turns,
       coalesce(us.replies, 0) AS replies,
       coalesce(us.input_tokens, 0) AS input_tokens,
       coalesce(us.output_tokens, 0) AS output_tokens,
       coalesce(us.cache_creation_tokens, 0) AS cache_creation_tokens,
       coalesce(us.cache_read_tokens, 0) AS cache_read_tokens,
       coalesce(mods.models, []) AS models,
       coalesce(cs.tool_calls, 0) AS tool_calls,
       coalesce(cs.tool_failures, 0) AS tool_failures,
       coalesce(ct.top_tools, []) AS top_tools
FROM keys
LEFT JOIN ms USING (key) LEFT JOIN us USING (key) LEFT JOIN mods USING (key)
LEFT JOIN cs USING (key) LEFT JOIN ct USING (key)
ORDER BY CASE WHEN $by = 'day' THEN keys.key END DESC NULLS LAST,
         coalesce(ms.turns, 0) DESC, keys.key;
