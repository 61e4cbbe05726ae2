-- brain calls: tool calls and their failures per agent and tool. $agent: '' or agent names
-- (comma-separated); $since: '' or a time. A failure is a result the agent marked as an error (or
-- a command's non-zero exit code, a failed patch or MCP call); `unanswered` are
-- calls whose result line is not on the floor (interrupted, or the session is still running).
SELECT agent, coalesce(tool_name, '(unnamed)') AS tool,
       count(*) AS calls,
       count(*) FILTER (WHERE is_error) AS failures,
       count(*) FILTER (WHERE result_line_no IS NULL) AS unanswered,
       round(100.0 * count(*) FILTER (WHERE is_error) / count(*), 1) AS failure_pct
FROM derived.calls
WHERE ($agent = '' OR list_contains(string_split($agent, ','), agent))
  AND ($since = '' OR event_time >= TRY_CAST($since AS TIMESTAMPTZ))
GROUP BY ALL
ORDER BY calls DESC, agent, tool;
