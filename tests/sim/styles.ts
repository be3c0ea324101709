/** A small Tailwind-flavoured stylesheet: enough for the page to look like Perplexity, nothing external. */
export const CSS = `
*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;padding:0}
body{font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#fcfcf9;color:#13343b;font-size:15px;line-height:1.55}
button{font:inherit;color:inherit;background:none;border:0;cursor:pointer;padding:0}
a{color:inherit;text-decoration:none}
svg.icon{width:18px;height:18px;flex:none}
.icon-sm svg.icon,svg.icon.icon-sm{width:14px;height:14px}
.flex{display:flex}.inline-flex{display:inline-flex}.flex-col{flex-direction:column}.flex-1{flex:1 1 0%;min-width:0}
.items-center{align-items:center}.justify-between{justify-content:space-between}.justify-end{justify-content:flex-end}.justify-center{justify-content:center}
.gap-1{gap:4px}.gap-2{gap:8px}.gap-3{gap:12px}.gap-4{gap:16px}
.contents{display:contents}.hidden{display:none!important}.block{display:block}.inline{display:inline}
.relative{position:relative}.absolute{position:absolute}
.truncate{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.text-xs{font-size:12px}.text-sm{font-size:13.5px}.text-base{font-size:15px}.text-lg{font-size:18px}
.font-medium{font-weight:500}.font-semibold{font-weight:600}
.text-quiet{color:#64645f}.text-super{color:#20808d}.text-caution{color:#b42318}
.rounded-lg{border-radius:10px}.rounded-xl{border-radius:14px}.rounded-2xl{border-radius:20px}.rounded-full{border-radius:999px}
.border{border:1px solid #e5e5df}.border-b{border-bottom:1px solid #e5e5df}
.bg-offset{background:#f3f3ee}.bg-base{background:#fff}.bg-subtle{background:#e6f2f3}
.opacity-0{opacity:0}.whitespace-pre-line{white-space:pre-line}.break-words{overflow-wrap:break-word}.select-text{user-select:text}
.min-w-0{min-width:0}.leading-relaxed{line-height:1.65}
.my-0{margin-top:0;margin-bottom:0}
@keyframes spin{to{transform:rotate(360deg)}}
@keyframes pulse{50%{opacity:.45}}
.animate-spin{animation:spin 1s linear infinite}
.animate-pulse{animation:pulse 2s cubic-bezier(.4,0,.6,1) infinite}

/* app frame */
.app{display:flex;min-height:100vh}
.sidebar{width:236px;flex:none;background:#f3f3ee;border-right:1px solid #e5e5df;height:100vh;position:sticky;top:0;display:flex;flex-direction:column;padding:14px 10px;gap:6px;overflow-y:auto}
.sidebar .logo{display:flex;align-items:center;gap:8px;font-weight:600;font-size:19px;padding:4px 8px 10px;letter-spacing:-.01em}
.logo-mark{width:26px;height:26px;border-radius:7px;background:#20808d;color:#fff;display:inline-flex;align-items:center;justify-content:center;font-size:15px}
.new-thread{display:flex;align-items:center;gap:8px;border:1px solid #e5e5df;background:#fff;border-radius:999px;padding:8px 12px;font-weight:500;margin-bottom:8px}
.nav-link{display:flex;align-items:center;gap:10px;padding:7px 10px;border-radius:8px;color:#3a4a4f}
.nav-link:hover,.nav-link[aria-current="page"]{background:#e8e8e2}
.recent-title{font-size:12px;color:#64645f;padding:12px 10px 4px;text-transform:uppercase;letter-spacing:.04em}
.recent a{display:block;padding:5px 10px;border-radius:8px;font-size:13.5px;color:#3a4a4f;position:relative}
.recent a:hover{background:#e8e8e2}
.title-dup{opacity:0;pointer-events:none}
.skeleton{height:14px;margin:8px 10px;border-radius:6px;background:#e3e3dc}
.sidebar-foot{margin-top:auto;display:flex;align-items:center;gap:8px;padding:8px;font-size:13.5px;color:#3a4a4f}
.avatar{width:26px;height:26px;border-radius:999px;background:#c9a37a;color:#fff;display:inline-flex;align-items:center;justify-content:center;font-size:12px}
main.main{flex:1;min-width:0;display:flex;flex-direction:column;min-height:100vh}
.topbar{position:sticky;top:0;z-index:5;background:rgba(252,252,249,.94);border-bottom:1px solid #ececE6;display:flex;align-items:center;justify-content:space-between;padding:10px 20px;font-size:14px}
.icon-btn{display:inline-flex;align-items:center;justify-content:center;width:32px;height:32px;border-radius:8px;color:#4a5a5f}
.icon-btn:hover{background:#ececE6}
.pill-btn{display:inline-flex;align-items:center;gap:6px;padding:6px 12px;border-radius:999px;border:1px solid #e5e5df;background:#fff;font-size:13.5px}

/* home */
.home{flex:1;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:40px 24px 120px}
.wordmark{font-size:44px;font-weight:400;letter-spacing:-.02em;margin-bottom:28px;color:#13343b}
.home .composer-wrap{width:100%;max-width:680px}
.suggestions{display:flex;gap:8px;flex-wrap:wrap;justify-content:center;margin-top:18px}

/* composer */
.composer{position:relative;background:#fff;border:1px solid #dcdcd5;border-radius:18px;box-shadow:0 1px 3px rgba(0,0,0,.04);padding:12px 12px 8px}
.composer:focus-within{border-color:#9cc8cc}
#ask-input{min-height:28px;max-height:240px;overflow-y:auto;outline:none;padding:2px 6px;white-space:pre-wrap;overflow-wrap:break-word}
#ask-input p{margin:0}
.placeholder{position:absolute;left:18px;top:14px;color:#8d8d86;pointer-events:none;user-select:none}
.toolbar{display:flex;align-items:center;justify-content:space-between;margin-top:8px;gap:8px}
.toolbar .left,.toolbar .right{display:flex;align-items:center;gap:6px}
.submit-btn{width:34px;height:34px;border-radius:999px;background:#20808d;color:#fff;display:inline-flex;align-items:center;justify-content:center}
.submit-btn:disabled{background:#d9e8e9;color:#fff;cursor:default}
.stop-btn{width:34px;height:34px;border-radius:999px;background:#13343b;color:#fff;display:inline-flex;align-items:center;justify-content:center}
.stop-btn svg.icon{width:14px;height:14px}
.mode-chip{display:inline-flex;align-items:center;gap:6px;padding:5px 10px;border-radius:999px;background:#f3f3ee;font-size:13.5px;color:#20808d;font-weight:500}
.mode-chip[data-state="open"]{background:#e6f2f3}
.computer-toggle{display:inline-flex;align-items:center;gap:6px;padding:5px 10px;border-radius:999px;font-size:13.5px;color:#4a5a5f}
.computer-toggle[aria-pressed="true"]{background:#13343b;color:#fff}
.mode-pill{display:inline-flex;align-items:center;gap:6px;padding:4px 8px 4px 10px;border-radius:999px;background:#e6f2f3;color:#1a6b75;font-size:13px;font-weight:500}
.typeahead{position:absolute;left:0;right:0;bottom:calc(100% + 6px);background:#fff;border:1px solid #dcdcd5;border-radius:14px;box-shadow:0 8px 30px rgba(0,0,0,.08);padding:6px;z-index:20}
.menus-below .typeahead{bottom:auto;top:calc(100% + 6px)}
.typeahead .group-label{font-size:12px;color:#64645f;padding:6px 10px 2px}
.typeahead [role="menuitem"]{display:flex;align-items:center;gap:10px;padding:8px 10px;border-radius:10px;cursor:pointer}
.typeahead [role="menuitem"][data-highlighted]{background:#f3f3ee}
.typeahead .row-desc{font-size:12px;color:#64645f}
.typeahead .active-mark{margin-left:auto;width:22px;height:22px;border-radius:999px;display:inline-flex;align-items:center;justify-content:center;color:#20808d}
.menu{position:fixed;min-width:260px;background:#fff;border:1px solid #dcdcd5;border-radius:14px;box-shadow:0 8px 30px rgba(0,0,0,.1);padding:6px;z-index:50;outline:none}
.menu [role^="menuitem"]{display:flex;align-items:center;gap:10px;padding:8px 10px;border-radius:10px;cursor:pointer;outline:none}
.menu [role^="menuitem"]:hover,.menu [role^="menuitem"]:focus{background:#f3f3ee}
.menu [aria-checked="true"]{color:#20808d}
.menu .item-desc{font-size:12px;color:#64645f}
.menu .check{margin-left:auto;color:#20808d}

/* thread */
.thread-scroll{flex:1;padding:24px 24px 200px}
.max-w-threadContentWidth{max-width:768px;margin:0 auto;width:100%}
.turn{padding:8px 0 28px;border-bottom:1px solid #ececE6;margin-bottom:24px}
.turn:last-child{border-bottom:0}
.query-row{display:flex;justify-content:flex-end;align-items:flex-start;gap:6px;margin-bottom:14px}
.query-tools{display:flex;gap:2px}
.bubble{max-width:80%;background:#f3f3ee;border-radius:18px;padding:10px 16px;font-size:16px}
.query-title{font-size:26px;font-weight:500;line-height:1.3;margin:4px 0 16px;letter-spacing:-.01em}
.expand-q{margin-top:4px;font-size:13px;color:#20808d}
.tabs{display:flex;gap:18px;border-bottom:1px solid #ececE6;margin-bottom:14px}
.tabs [role="tab"]{padding:8px 0;font-size:14px;color:#64645f;border-bottom:2px solid transparent;display:inline-flex;gap:6px;align-items:center}
.tabs [role="tab"][aria-selected="true"]{color:#13343b;border-bottom-color:#13343b;font-weight:500}
.steps{border:1px solid #ececE6;border-radius:12px;padding:8px 12px;margin-bottom:14px;background:#fff}
.steps-head{display:flex;align-items:center;gap:8px;width:100%;font-size:13.5px;color:#4a5a5f}
.steps-head .cancel{margin-left:auto;font-size:12.5px;color:#64645f;border:1px solid #e5e5df;border-radius:999px;padding:2px 10px}
.step-rows{display:flex;flex-direction:column;gap:4px;padding:6px 0 2px 26px}
.step-row{display:flex;align-items:center;gap:8px;font-size:13.5px;color:#4a5a5f}
.step-row svg.icon{width:15px;height:15px;color:#20808d}
.spinner{width:16px;height:16px;border-radius:999px;border:2px solid #cfe3e5;border-top-color:#20808d;display:inline-block;flex:none}
.prose{font-size:16px;line-height:1.7;color:#13343b}
.prose p{margin:0 0 12px}
.prose ul,.prose ol{margin:0 0 12px;padding-left:24px}
.prose h2,.prose h3{margin:20px 0 8px;line-height:1.3}
.prose code{background:#f3f3ee;border-radius:5px;padding:1px 5px;font-size:14px}
.prose pre{margin:0;padding:12px;overflow-x:auto}
.prose pre code{background:none;padding:0}
.code-block{margin:0 0 14px}
.code-head{padding:4px 8px 4px 12px;border-bottom:1px solid #e5e5df}
.nested-card{padding:10px 14px;margin:0 0 14px}
.citation-chip{display:inline-flex;align-items:center;padding:0 7px;height:19px;border-radius:6px;background:#ecece6;color:#4a5a5f;font-size:11.5px;font-weight:500;vertical-align:2px;cursor:pointer}
.citation-chip:hover{background:#20808d;color:#fff}
.citation-badge{display:inline-flex;align-items:center;padding:0 6px;height:18px;border-radius:999px;background:#ecece6;color:#4a5a5f;font-size:11px;vertical-align:2px;margin-left:2px}
.ml-xs{margin-left:2px}
.caret{display:inline-block;width:8px;height:16px;background:#20808d;border-radius:2px;vertical-align:-2px;margin-left:2px}
.answer-tools{display:flex;align-items:center;gap:4px;margin-top:8px;color:#64645f}
.task-interaction{display:flex;flex-direction:column;gap:10px;margin:12px 0;padding:14px;border-radius:12px;border:1px solid #e5e5df;background:#fafaf7}
.interaction-head{display:flex;align-items:center;gap:8px;font-size:13px;color:#6b6b66}
.interaction-prompt{font-size:15px;font-weight:500}
.interaction-options,.interaction-actions{display:flex;flex-wrap:wrap;gap:8px}
.interaction-reply{display:flex;gap:8px;align-items:flex-end}
.interaction-field{flex:1;resize:none;padding:8px 10px;border-radius:10px;border:1px solid #e5e5df;font:inherit}
.pill-btn.primary{background:#1f6f6b;color:#fff;border-color:#1f6f6b}
.error-box{display:flex;align-items:center;gap:10px;padding:12px 14px;border-radius:12px;background:#fdf0ee;color:#b42318;font-size:14.5px}
.sources-list{display:flex;flex-direction:column;gap:8px}
.source-card{display:block;border:1px solid #ececE6;border-radius:10px;padding:8px 12px;background:#fff}
.source-card .url{font-size:12px;color:#64645f}
.popover{position:fixed;z-index:60;width:340px;background:#fff;border:1px solid #dcdcd5;border-radius:14px;box-shadow:0 8px 30px rgba(0,0,0,.12);padding:8px}
.popover .entry{display:block;padding:6px 8px;border-radius:8px}
.popover a.entry:hover{background:#f3f3ee}
.popover .entry-title{font-size:13.5px;font-weight:500}
.popover .entry-url{font-size:12px;color:#64645f;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.follow-up{position:fixed;bottom:0;left:236px;right:0;padding:12px 24px 18px;background:linear-gradient(rgba(252,252,249,0),#fcfcf9 30%)}
.follow-up .composer{max-width:768px;margin:0 auto}
.sidecar .follow-up{left:0}

/* library & static pages */
.page-pad{padding:32px 24px;max-width:860px;margin:0 auto;width:100%}
.page-h1{font-size:26px;font-weight:500;margin:0 0 18px}
.lib-item{display:block;padding:14px 4px;border-bottom:1px solid #ececE6}
.lib-item .lib-title{font-weight:500;font-size:16px}
.lib-item .lib-snippet{font-size:13.5px;color:#64645f;overflow:hidden;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical}
.lib-item .lib-meta{font-size:12px;color:#8d8d86;margin-top:4px}
.sidecar{max-width:440px;margin:0 auto;border-left:1px solid #e5e5df;border-right:1px solid #e5e5df;min-height:100vh;background:#fcfcf9}
`;
