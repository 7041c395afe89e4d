/** The widget's look, inside its shadow root: a launcher button and a panel in the page's bottom-right corner. */
export const STYLES = `
:host { all: initial; }
* { box-sizing: border-box; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
.launcher { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; border: 0; border-radius: 24px;
  padding: 12px 18px; background: #2450d8; color: #fff; cursor: pointer; box-shadow: 0 4px 14px rgba(0,0,0,.2); }
.panel { position: fixed; right: 20px; bottom: 76px; z-index: 2147483000; width: 340px; height: 460px;
  display: flex; flex-direction: column; background: #fff; color: #1d1d1f; border-radius: 12px;
  box-shadow: 0 8px 30px rgba(0,0,0,.25); overflow: hidden; }
.panel[hidden], [hidden] { display: none !important; }
.header { display: flex; align-items: center; justify-content: space-between; padding: 12px 14px; background: #2450d8;
  color: #fff; }
.title { flex: 1; font-weight: 600; color: #fff; }
.end { margin-left: 6px; }
.call, .end { border: 1px solid #fff; background: transparent; color: #fff; border-radius: 6px; padding: 4px 10px; }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.bubble { max-width: 80%; padding: 8px 11px; border-radius: 12px; white-space: pre-wrap; word-wrap: break-word; }
.bubble.agent { align-self: flex-start; background: #f0f1f5; }
.bubble.visitor { align-self: flex-end; background: #2450d8; color: #fff; }
.bubble.typing:empty::after { content: "…"; }
.bubble.failed { background: #fdecec; color: #8a1c1c; }
.retry { align-self: flex-start; border: 0; background: none; color: #2450d8; cursor: pointer; padding: 0 4px; }
.status { padding: 6px 12px; color: #8a1c1c; font-size: 13px; }
.compose { display: flex; gap: 6px; padding: 10px; border-top: 1px solid #e5e5ea; }
.compose input { flex: 1; }
.intro { display: flex; flex-direction: column; gap: 8px; padding: 12px; border-top: 1px solid #e5e5ea; }
.hint { margin: 0; color: #555; }
input { padding: 8px 10px; border: 1px solid #c7c7cc; border-radius: 8px; }
.send { border: 0; border-radius: 8px; padding: 8px 12px; background: #2450d8; color: #fff; cursor: pointer; }
`;
