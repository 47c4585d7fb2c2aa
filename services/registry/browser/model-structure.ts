// What a fitted model is, as tables: coefficients of the linear kinds (on the scaled features and per raw
// unit), a curve fit's formula and parameters, a tree ensemble's summary (trees, depth, leaves, splits per
// feature), the sizes of KNN and SVR. Only reads the component files; predicting stays in services/models.
import type { ComponentModels } from "../../models/index.js";
import { escape, significant } from "./html.js";

type ComponentFile = ComponentModels["components"][number][1];
type TreeArrays = { feature: number[]; left: number[]; right: number[] };

const table = (head: readonly string[], rows: ReadonlyArray<readonly string[]>, className: string) =>
  `<table class="${className}"><thead><tr>${head.map((h) => `<th>${escape(h)}</th>`).join("")}</tr></thead><tbody>
${rows.map((row) => `<tr>${row.map((cell, i) => (i === 0 ? `<td>${cell}</td>` : `<td class="num">${cell}</td>`)).join("")}</tr>`).join("\n")}
</tbody></table>`;

// sklearn's PolynomialFeatures(degree=2, include_bias=True) column order: 1, x_i, then x_i*x_j for i <= j.
function polynomialColumns(features: readonly string[]): string[] {
  const columns = ["1", ...features];
  features.forEach((a, i) => features.slice(i).forEach((b) => columns.push(a === b ? `${a}^2` : `${a} * ${b}`)));
  return columns;
}

function coefficientTable(
  features: readonly string[],
  scale: readonly number[],
  coefficients: readonly number[],
  intercept: number,
): string {
  const rows = coefficients.map((coefficient, i) => {
    const name = features[i] ?? `x${i}`;
    const raw = scale[i] === undefined ? "-" : significant(coefficient / scale[i]!);
    return [escape(name), significant(coefficient), raw];
  });
  rows.push(["intercept", significant(intercept), significant(intercept)]);
  return table(["feature", "coefficient (W per scaled unit)", "W per unit of the feature"], rows, "coefficients");
}

function treeSummary(trees: readonly TreeArrays[], features: readonly string[]): string {
  const splits = new Array<number>(features.length).fill(0);
  let leaves = 0;
  let depth = 0;
  for (const tree of trees) {
    // Children come after their parent (tree-model-files.ts), so one pass in node order sets every depth.
    const depths = new Array<number>(tree.feature.length).fill(0);
    tree.feature.forEach((feature, node) => {
      if (feature < 0) {
        leaves += 1;
        return;
      }
      splits[feature] = (splits[feature] ?? 0) + 1;
      depths[tree.left[node]!] = depths[node]! + 1;
      depths[tree.right[node]!] = depths[node]! + 1;
    });
    depth = Math.max(depth, ...depths);
  }
  const rows = features.map((name, i) => [escape(name), String(splits[i] ?? 0)]);
  return `<p>${trees.length} trees, ${leaves} leaves in all, the deepest leaf ${depth} splits below the root.</p>
${table(["feature", "splits on it"], rows, "tree-splits")}`;
}

/** One component's model as HTML. */
export function componentStructure(file: ComponentFile, features: readonly string[], scale: readonly number[]): string {
  switch (file.kind) {
    case "linear":
    case "sgd":
      return coefficientTable(features, scale, file.coefficients, file.intercept);
    case "polynomial":
      return `<p>Ordinary least squares on the degree-2 expansion of the scaled features.</p>
${table(["column", "coefficient"], [...polynomialColumns(features).map((c, i) => [escape(c), significant(file.coefficients[i])]), ["intercept", significant(file.intercept)]], "coefficients")}`;
    case "curve_fit":
      return `<p>Curve <code>${escape(file.formula)}</code> on the scaled feature ${escape(file.feature)}.</p>
${table(
  ["parameter", "value"],
  file.parameters.map((p, i) => [
    escape((file.function === "logistic" ? ["A", "x0", "k", "off"] : ["a", "b", "c"])[i] ?? `p${i}`),
    significant(p),
  ]),
  "coefficients",
)}`;
    case "k_neighbors":
      return `<p>${file.n_neighbors} nearest neighbours (${escape(file.metric)}, ${escape(file.weights)}) among ${file.fit_y.length} stored training rows.</p>`;
    case "gradient_boosting":
      return `<p>Gradient boosting: start at ${significant(file.init)} W, learning rate ${significant(file.learning_rate)}, max depth ${file.max_depth}.</p>
${treeSummary(file.trees, features)}`;
    case "xgboost_fit":
      return `<p>XGBoost-style boosting: base score ${significant(file.base_score)} W, eta ${significant(file.eta)}, lambda ${significant(file.lambda)}, max depth ${file.max_depth}.</p>
${treeSummary(file.trees, features)}`;
    case "svr":
      return `<p>RBF support vector regression: ${file.dual_coef.length} support vectors, C ${significant(file.C)}, epsilon ${significant(file.epsilon)}, gamma ${significant(file.gamma)}, intercept ${significant(file.intercept)}.</p>`;
  }
}
