// What every pool worker thread runs after worker-bootstrap.js: serves the tasks of any task module.
import { serveTaskModules } from "./worker-tasks.js";

serveTaskModules();
