import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/fixtures/**', '.e2e/**', 'examples/**/.e2e/**', 'test-results/**', 'playwright-report/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    // One program for tsconfig.json (every linted file is in it), not the project service: the same rules on the same
    // files with the same types, about a fifth less CPU (27 vs 34 CPU-s for `eslint .`).
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
