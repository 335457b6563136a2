// Both majors are installed under aliases; `@types/express` describes them well enough for the recipes.
declare module 'express4' {
  import express from 'express';
  export default express;
}
declare module 'express5' {
  import express from 'express';
  export default express;
}
