// Cline's ui_messages.json -> turns: the dialect is the task-folder one its forks share.
export { clineTaskDialect as clineDialect } from '../kit/clinetask';
