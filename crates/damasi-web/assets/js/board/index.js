// The board: one object, its drawing, input and animation in their own modules.
import { board } from "./render.js";
import "./input.js";
import "./animation.js";

export { board };
