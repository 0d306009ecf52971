// speedscope's importers, run headless under node: shared by .ci/speedscope-import.mjs and
// .ci/speedscope-corpus.mjs.
//
// speedscope ships as one browser bundle, not as a library: its importers are a module the app
// loads lazily (`importProfileGroupFromText`). The bundle is run in this process with just enough
// of a browser for its top level, and the promise of that module is handed out by one inserted
// assignment. Its names are minified, so .ci/consumers pins the version; if the hook is not found
// the check fails rather than passing unchecked.
import fs from 'node:fs'
import path from 'node:path'
import vm from 'node:vm'

export async function speedscopeImporters(releaseDir) {
  const bundle = fs.readdirSync(releaseDir).find((f) => /^speedscope-\w+\.js$/.test(f))
  let code = fs.readFileSync(path.join(releaseDir, bundle), 'utf8')
  const lazyImport = /var (\w+)=Promise\.resolve\(\)\.then\(\(\)=>\(\w+\(\),\w+\)\);/
  const found = code.match(lazyImport)
  if (!found) throw new Error(`${bundle}: the lazy import of speedscope's importers is not where expected`)
  code = code.replace(lazyImport, (s) => `${s}globalThis.__speedscopeImporters=${found[1]};`)
  // Every DOM object the app's top level touches: any property, call or construction gives another.
  const anything = new Proxy(function () {}, {
    get: (_, key) => (key === Symbol.toPrimitive ? () => '' : anything),
    apply: () => anything,
    construct: () => anything,
  })
  Object.assign(globalThis, {
    window: globalThis,
    document: anything,
    location: { href: 'file:///', hash: '', search: '', protocol: 'file:' },
    addEventListener: () => {},
    requestAnimationFrame: () => {},
    localStorage: { getItem: () => null, setItem: () => {} },
  })
  const log = console.log
  console.log = () => {}
  try {
    vm.runInThisContext(code)
  } catch {
    // The app itself cannot start without a real DOM; the importers were handed out before that.
  }
  console.log = log
  const importers = await globalThis.__speedscopeImporters
  if (!importers || typeof importers.importProfileGroupFromText !== 'function') {
    throw new Error(`${bundle}: speedscope's importers were not handed out`)
  }
  return importers
}

// The profile group speedscope imports from FILE (read as text, as its file picker does for
// anything but a binary file), its console quiet.
export async function importGroup(importers, file) {
  const log = console.log
  const warn = console.warn
  const error = console.error
  console.log = console.warn = console.error = () => {}
  try {
    const bytes = fs.readFileSync(file)
    const name = path.basename(file)
    if (typeof importers.importProfilesFromArrayBuffer === 'function' && /\.(pb|pprof|prof|gz)$/.test(name)) {
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
      const group = await importers.importProfilesFromArrayBuffer(name, buffer)
      if (group) return group
    }
    return await importers.importProfileGroupFromText(name, bytes.toString('utf8'))
  } finally {
    console.log = log
    console.warn = warn
    console.error = error
  }
}
