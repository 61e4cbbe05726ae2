// Claude Code (@anthropic-ai/claude-code) against the Messages API stand-in: live capture,
// verify, turns, search.
import { agentSuite } from './suite';

agentSuite('cc');
