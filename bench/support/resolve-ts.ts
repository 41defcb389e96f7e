// Lets Node run the TypeScript sources as they are: src imports siblings as `./x.js` (what the
// compiled output will be called), which Node's type stripping alone cannot find. A relative
// `.js` import that does not exist is tried as `.ts`. Loaded with `node --import`.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      if (relative && specifier.endsWith(".js") && (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND") {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
});
