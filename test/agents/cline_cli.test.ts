// Cline CLI, live against the chat stand-in (the suite: drivers/wholefile.ts; the driver: drivers/cline_cli.ts).
import { wholeFileSuite } from './drivers/wholefile';
import { clineCliAgent } from './drivers/cline_cli';

wholeFileSuite(clineCliAgent);
