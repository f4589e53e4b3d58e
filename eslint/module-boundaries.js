// Modules meet only through their surface: a file outside src/modules/<name>/ may import that
// module's index.js, never another of its files (docs/ARCHITECTURE.md, "The pieces").
import { dirname, resolve, sep } from 'node:path';

const MODULES = `${sep}src${sep}modules${sep}`;

/** The module a path lies in: its folder and the path inside it; undefined outside src/modules. */
function moduleOf(path) {
  const at = path.lastIndexOf(MODULES);
  if (at < 0) return undefined;
  const rest = path.slice(at + MODULES.length);
  const name = rest.split(sep)[0];
  return { folder: path.slice(0, at + MODULES.length) + name, name, inner: rest.slice(name.length + 1) };
}

const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Import another module only through its index.ts (the module's public surface)." },
    messages: {
      internal: "'{{file}}' is private to the {{name}} module: import it from '{{name}}/index.js', its public surface.",
    },
    schema: [],
  },
  create(context) {
    const from = moduleOf(context.filename);
    /** The specifier as written: a string, or a template without expressions (`import(\`...\`)`). */
    function specifierOf(source) {
      if (source?.type === 'Literal') return source.value;
      if (source?.type === 'TemplateLiteral' && source.expressions.length === 0) return source.quasis[0].value.cooked;
      // typescript-eslint's import type (`import('x').T`) keeps its specifier under argument.
      if (source?.type === 'TSLiteralType') return source.literal.value;
      return undefined;
    }
    function check(node) {
      const spec = specifierOf(node.source ?? node.argument);
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = moduleOf(resolve(dirname(context.filename), spec));
      if (to === undefined || to.folder === from?.folder || /^index\.[jt]s$/.test(to.inner)) return;
      context.report({ node: node.source, messageId: 'internal', data: { name: to.name, file: to.inner } });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      TSImportType: check,
    };
  },
};

export default { rules: { 'module-boundaries': moduleBoundaries } };
