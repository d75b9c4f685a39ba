import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/**",
      "public/build/**",
      "node_modules/**",
      "data/**",
      "coverage/**",
      "artifacts/**",
      "reports/**",
      ".stryker-tmp/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      // Only app/config.server.ts reads the environment (scripts and tooling aside).
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Import `config` from app/config.server.ts.",
        },
      ],
    },
  },
  {
    files: ["*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly" },
    },
  },
  {
    files: [
      "app/config.server.ts",
      "test/**",
      "scripts/**",
      "bench/**",
      "prisma.config.ts",
      "vitest.config.ts",
      "*.js",
      "*.mjs",
    ],
    rules: { "no-restricted-properties": "off" },
  },
);
