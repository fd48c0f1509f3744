#!/usr/bin/env node
// Type-checks and lints on one TypeScript program: `tsc -p tsconfig.json --noEmit` and `eslint .`
// each build the same program of every file (the lint's rules read types), so `npm test` builds it once.
// Prints what each would print and fails when either finds a problem.
import ts from 'typescript';
import { ESLint } from 'eslint';

const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => ts.sys.newLine };
const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail([diagnostic]) };
const parsed = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, host);
if (parsed === undefined) process.exit(2);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: parsed.errors });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));

const eslint = new ESLint({ overrideConfig: { languageOptions: { parserOptions: { programs: [program] } } } });
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const lintText = await formatter.format(results);
if (lintText !== '') process.stdout.write(lintText);
// Like `eslint .`: warnings are printed, errors fail.
const lintErrors = results.reduce((sum, result) => sum + result.errorCount, 0);
process.stdout.write(`types: ${diagnostics.length} error(s); lint: ${lintErrors} error(s)\n`);
process.exit(diagnostics.length > 0 || lintErrors > 0 ? 1 : 0);

function fail(found) {
  process.stdout.write(ts.formatDiagnosticsWithColorAndContext(found, formatHost));
  process.exit(2);
}
