import { taskFolderFiles } from '../kit/clinetask';

/** Kilo Code's extension (publisher kilocode.kilo-code): Cline's task folders, in every editor. */
export const kiloFiles = taskFolderFiles('kilocode.kilo-code');
