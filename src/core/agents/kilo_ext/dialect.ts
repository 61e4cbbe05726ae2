// Kilo Code's extension kept Cline's ui_messages.json: the same task-folder dialect.
export { clineTaskDialect as kiloDialect } from '../kit/clinetask';
