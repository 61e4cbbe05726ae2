// Continue's CLI, live against the chat stand-in (the suite: drivers/wholefile.ts; the driver: drivers/continue.ts).
import { wholeFileSuite } from './drivers/wholefile';
import { continueAgent } from './drivers/continue';

wholeFileSuite(continueAgent);
