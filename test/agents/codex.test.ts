// Codex (@openai/codex) against the Responses API stand-in: live capture, verify, turns, search.
import { agentSuite } from './suite';

agentSuite('codex');
