export { ROLE_WORDS, grammarText } from "./grammar-text.js";
export { recordInstruction } from "./record-instruction.js";
export { replayActions, replayOptions } from "./replay.js";
export { replayRead, runRecipe, RecipeStale } from "./read-recipe.js";
export { deriveRecipe, recordReadRecipe, type DerivedRecipe } from "./derive-recipe.js";
export { evaluateCheckRecipe, recordCheckRecipe, replayCheck, type DerivedCheckRecipe } from "./check-recipe.js";
