// Pi (@mariozechner/pi-coding-agent) against the chat-completions stand-in: live capture, verify,
// turns and search.
import { agentSuite } from './suite';

agentSuite('pi');
