// Roo Code kept Cline's ui_messages.json: the same task-folder dialect.
export { clineTaskDialect as rooDialect } from '../kit/clinetask';
