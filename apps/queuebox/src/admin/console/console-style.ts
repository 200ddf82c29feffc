/** The console's style sheet, served from the page's origin (the CSP allows no inline style). */
export const CONSOLE_STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #f6f7f9; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #20304a; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header input { width: 18rem; }
main { padding: 0 1rem 2rem; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: .6rem 1rem; margin: 1rem 0; }
h2 { font-size: 1rem; margin: .2rem 0 .6rem; }
table { border-collapse: collapse; width: 100%; margin-bottom: .5rem; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #eceff3; vertical-align: top; }
td.error { font-family: ui-monospace, monospace; font-size: 12px; max-width: 40rem; overflow-wrap: anywhere; }
tr.clickable { cursor: pointer; }
tr.clickable:hover { background: #eef3fb; }
button.link { background: none; border: none; color: #1a56b0; cursor: pointer; padding: 0; font-family: ui-monospace, monospace; }
form#filter { display: flex; flex-wrap: wrap; gap: .8rem; margin-bottom: .6rem; }
pre { background: #f3f4f6; padding: .6rem; overflow: auto; max-height: 28rem; }
#status { min-height: 1.2rem; font-weight: 600; }
#status.error { color: #b00020; }
#auth-note { color: #ffd27f; margin: 0; }
`;
