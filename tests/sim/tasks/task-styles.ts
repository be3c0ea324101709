/** Styles of the computer-task parts of the simulated page (client/task.ts, client/task-composer.ts). */
export const TASK_CSS = `
.topbar h1{font-size:inherit;margin:0}

.task-files{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.asset-card{display:flex;align-items:center;gap:8px;padding:8px 12px;border:1px solid #e5e5df;border-radius:10px;background:#fff}
.asset-card a{font-weight:500;color:inherit}
.task-status{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:12px 0;padding:10px 14px;border-radius:10px;background:#f3f3ee}
.connector-suggestion{display:flex;align-items:center;gap:8px;margin:8px 0;padding:8px 12px;border:1px dashed #d5d5cf;border-radius:10px}
.interaction-question{border:0;margin:0;padding:0;display:flex;flex-direction:column;gap:6px}
.interaction-choices{display:flex;flex-wrap:wrap;gap:8px}
.interaction-choices [aria-checked="true"]{background:#20808d;color:#fff}
.attachment-chips{display:flex;flex-wrap:wrap;gap:6px;padding:0 4px}
.attachment-chip{display:inline-flex;align-items:center;gap:6px;padding:4px 8px;border-radius:8px;background:#f3f3ee;font-size:13px}
.todo-popover{position:fixed;top:56px;right:24px;min-width:240px;display:flex;flex-direction:column;gap:6px;padding:10px}
.todo-item{display:flex;align-items:center;gap:8px}
`;
