// The one Node API the Node entry uses (Deno provides it too), declared here rather than
// depending on @types/node.
declare module 'node:fs' {
  export function readFileSync(path: URL): Uint8Array<ArrayBuffer>;
}
