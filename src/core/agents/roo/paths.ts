import { taskFolderFiles } from '../kit/clinetask';

/** Roo Code (publisher rooveterinaryinc.roo-cline): Cline's task folders, in every editor. */
export const rooFiles = taskFolderFiles('rooveterinaryinc.roo-cline');
